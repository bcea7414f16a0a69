// Inspect > Meshes: each skinned mesh's vertices, triangles, influences, palette joints and material.
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class MeshesPanel : public Panel {
 public:
  const char* name() const override { return "Meshes"; }
  Dock dock() const override { return Dock::kInspect; }

  void draw(ViewState& s) override {
    const auto& materials = s.doc->character->materials;
    for (const SkinnedMesh& mesh : s.doc->character->asset.meshes) {
      const int m = mesh.material();
      ImGui::BulletText("%s: %d vertices, %zu triangles, %d influences, %zu palette joints, material %s",
                        mesh.name().c_str(), mesh.vertex_count(), mesh.indices().size() / 3,
                        mesh.influences(), mesh.joint_remap().size(),
                        m >= 0 && m < static_cast<int>(materials.size()) ? materials[m].name.c_str() : "-");
    }
  }
};

}  // namespace

std::unique_ptr<Panel> make_meshes_panel() {
  return std::make_unique<MeshesPanel>();
}

}  // namespace ossa::viewer
