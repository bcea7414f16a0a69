// The 3D view: orbit, pan and zoom with the pointer, joints hovered and picked; the character drawn by the
// skinning path chosen (and the crowd, the ground the feet are planted on, the retargeted character in the
// right half); the overlay: the travelled path, skeleton, onion skin, motion trail, joint axes and names.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "render/draw_plan.h"
#include "viewer/app/window.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class SceneView : public ScenePanel {
 public:
  void input(ViewState& s) override {
    if (s.layout.resizing != Edge::kNone) return;  // a panel's edge is being dragged
    if (!s.doc) return;
    const Layout& l = s.layout;
    ImGuiIO& io = ImGui::GetIO();
    const ImVec2 mouse = io.MousePos;
    const bool inside = mouse.x >= l.scene_x && mouse.x < l.scene_x + l.scene_w && mouse.y >= l.scene_y &&
                        mouse.y < l.scene_y + l.scene_h;
    const bool over_ui = io.WantCaptureMouse;
    // Joint under the pointer (within 8 points), for the tooltip and picking.
    s.hovered_joint = -1;
    if (inside && !over_ui && s.display.skeleton) {
      float best = 64 * s.ui_scale * s.ui_scale;
      const auto model = s.shown_model();
      for (int j = 0; j < static_cast<int>(model.size()); ++j) {
        ImVec2 at;
        if (!project(s, transform_point(s.pose_world(), model[j].translation()), at)) continue;
        const float d = (at.x - mouse.x) * (at.x - mouse.x) + (at.y - mouse.y) * (at.y - mouse.y);
        if (d < best) best = d, s.hovered_joint = j;
      }
    }
    if (inside && !over_ui) {
      if (io.MouseWheel != 0) s.camera.zoom(io.MouseWheel);
      if (ImGui::IsMouseClicked(0) || ImGui::IsMouseClicked(1) || ImGui::IsMouseClicked(2)) {
        dragging_ = true;
        press_ = last_ = mouse;
      }
    }
    if (dragging_) {
      // Travel since the press, not io.MouseDelta: at a low frame rate the pointer's way to where it was
      // pressed arrives in the same poll as the press, and would swing the camera on a plain click.
      const ImVec2 d(mouse.x - last_.x, mouse.y - last_.y);
      last_ = mouse;
      if (io.MouseDown[0] && !io.KeyShift)
        s.camera.orbit(d.x, d.y);
      else if (io.MouseDown[2] || io.MouseDown[1] || (io.MouseDown[0] && io.KeyShift))
        s.camera.pan(d.x, d.y, l.scene_h);
      if (ImGui::IsMouseReleased(0)) {
        // A click (no drag) picks the joint under the pointer.
        const float moved = std::abs(mouse.x - press_.x) + std::abs(mouse.y - press_.y);
        if (moved < 3 && s.hovered_joint >= 0) s.selected_joint = s.reveal_joint = s.hovered_joint;
      }
      if (!io.MouseDown[0] && !io.MouseDown[1] && !io.MouseDown[2]) dragging_ = false;
    }
  }

  void render(ViewState& s) override {
    int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
    s.window->framebuffer_size(fb_w, fb_h);
    s.window->size(win_w, win_h);
    const float scale = win_w > 0 ? static_cast<float>(fb_w) / static_cast<float>(win_w) : 1;
    s.window->clear();
    if (!s.doc) return;
    const auto start = Clock::now();
    const Layout& l = s.layout;
    const Display& d = s.display;
    Document& doc = *s.doc;
    s.frame.width = std::max(1, static_cast<int>(l.scene_w * scale));
    s.frame.height = std::max(1, static_cast<int>(l.scene_h * scale));
    s.frame.camera = s.camera.camera();
    s.frame.lighting = d.lighting;
    s.frame.grid = d.grid;
    s.view_proj = detail::view_projection(s.frame, detail::DepthRange::kMinusOneToOne);
    CharacterRenderer& r = *doc.renderer;
    const Playback& p = *doc.playback;
    r.begin_frame(s.frame);
    const Mat4 world = s.pose_world();
    // The baked path draws a clip's baked frames: what it cannot hold (baked_limit) is drawn with palettes,
    // and the overlay says so.
    s.drawn_skinning = d.skinning;
    if (d.skinning == kSkinBaked && (!s.baked_limit().empty() || !s.prepare_bake()))
      s.drawn_skinning = kSkinPalette;
    if (s.drawn_skinning == kSkinBaked) {
      BakedInstance self;
      self.world = world;
      self.clip = std::max(p.clip(), 0);
      self.time = p.time();
      self.speed = 0;
      r.draw_baked({&self, 1}, 0);
    } else if (s.drawn_skinning == kSkinCpu) {
      r.draw_cpu(world, s.shown_model(), morph_weights(s));
    } else {
      r.draw_palette(world, s.shown_model(), morph_weights(s));
    }
    if (d.crowd > 0 && s.prepare_bake()) {
      const CharacterAsset& animated = p.animated_asset();
      const float spacing = std::max(doc.hi.x - doc.lo.x, doc.hi.z - doc.lo.z) * 1.5f + 1e-3f;
      if (static_cast<int>(doc.crowd.size()) != d.crowd) doc.crowd = crowd_grid(animated, d.crowd, spacing);
      std::vector<BakedInstance> placed = doc.crowd;
      for (BakedInstance& b : placed) b.world = translation_matrix({0, 0, -spacing}) * b.world;
      r.draw_baked(placed, doc.crowd_time);
    }
    // The ground the feet are planted on (slope and step): a lattice around the character, depth-tested (the
    // legs in front of it hide it).
    if (p.foot_placement() && p.ground() == Playback::Ground::kSlopeAndStep) {
      const Vec3 c = world.translation();
      const float extent = std::max(doc.hi.y - doc.lo.y, 1e-3f) * 1.2f;
      const int lines = 13, pieces = 48;
      std::vector<Vec3> segments;
      segments.reserve(2 * lines * pieces * 2);
      for (int axis = 0; axis < 2; ++axis)
        for (int i = 0; i < lines; ++i) {
          const float across = -extent + 2 * extent * static_cast<float>(i) / (lines - 1);
          for (int k = 0; k < pieces; ++k)
            for (int end = 0; end < 2; ++end) {
              const float along = -extent + 2 * extent * static_cast<float>(k + end) / pieces;
              const float x = c.x + (axis == 0 ? across : along), z = c.z + (axis == 0 ? along : across);
              segments.push_back({x, p.ground_height(x, z), z});
            }
        }
      r.draw_world_lines(segments, {0.43f, 0.67f, 0.43f});
    }
    // The frame's top row: its bottom one is where the scene's bottom edge falls (the same pixels on every
    // platform, however the edges round).
    const int top = static_cast<int>((l.scene_y + l.scene_h) * scale) - s.frame.height;
    s.window->present(r, static_cast<int>(l.scene_x * scale), top, s.frame.height);
    if (s.retarget &&
        s.retarget->session.pose(s.graph ? s.graph->instance().locals() : p.locals(), s.retarget->model)) {
      CharacterRenderer& target = *s.retarget->renderer;
      target.begin_frame(s.frame);
      target.draw_palette(world, s.retarget->model);
      s.window->present(target, static_cast<int>((l.scene_x + l.scene_w) * scale), top, s.frame.height);
    }
    s.scene_ms.add(ms_since(start));
  }

  void draw(ViewState& s) override {
    if (!s.doc) return;
    const Layout& l = s.layout;
    const Display& d = s.display;
    const float ui = s.ui_scale;
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    draw->PushClipRect(ImVec2(l.scene_x, l.scene_y), ImVec2(l.scene_x + l.scene_w, l.scene_y + l.scene_h));
    const Playback& p = *s.doc->playback;
    const Mat4& world = s.pose_world();
    if (s.matching && s.matching_on) draw_matching(s, draw);
    // The travelled path on the ground (root motion).
    if (!(s.matching && s.matching_on) && p.root_motion() && p.path().size() > 1) {
      ImVec2 previous;
      bool have_previous = false;
      for (const Vec3& at : p.path()) {
        ImVec2 on_screen;
        const bool visible = project(s, at, on_screen);
        if (visible && have_previous) draw->AddLine(previous, on_screen, IM_COL32(80, 200, 255, 255), 2 * ui);
        previous = on_screen;
        have_previous = visible;
      }
    }
    const int selected_joint = s.selected_joint;
    if (d.skeleton) {
      const auto model = s.shown_model();
      const auto parents = p.animated_asset().skeleton.parents();
      const std::vector<float> selected =
          selected_joint >= 0 ? Playback::subtree_mask(p.animated_asset().skeleton, selected_joint)
                              : std::vector<float>(model.size(), 0.f);
      for (int j = 0; j < static_cast<int>(model.size()); ++j) {
        ImVec2 a, b;
        if (!project(s, transform_point(world, model[j].translation()), a)) continue;
        const ImU32 color = selected[j] > 0 ? IM_COL32(255, 170, 40, 255) : IM_COL32(235, 235, 120, 255);
        if (parents[j] >= 0 && project(s, transform_point(world, model[parents[j]].translation()), b))
          draw->AddLine(a, b, color, 2 * ui);
        draw->AddCircleFilled(a, (j == selected_joint ? 5.f : 3.f) * ui,
                              j == selected_joint ? IM_COL32(255, 90, 40, 255) : color);
      }
      if (s.hovered_joint >= 0)
        ImGui::SetTooltip("%s", p.animated_asset().skeleton.name(s.hovered_joint).c_str());
    }
    // Onion skin and motion trail: poses of the clip sampled at other times (the playhead does not move).
    const CharacterAsset& animated = p.animated_asset();
    const Clip* clip = p.current_clip();
    if ((d.onion || (d.trail && selected_joint >= 0)) && clip && !s.graph && !p.blend_space_on() &&
        !(s.matching && s.matching_on)) {
      const float frame = 1 / (clip->frame_rate() > 0 ? clip->frame_rate() : 30.f);
      const auto parents = animated.skeleton.parents();
      auto draw_pose = [&](ImU32 color) {
        for (int j = 0; j < static_cast<int>(ghost_model_.size()); ++j) {
          ImVec2 a, b;
          if (parents[j] >= 0 && project(s, transform_point(world, ghost_model_[j].translation()), a) &&
              project(s, transform_point(world, ghost_model_[parents[j]].translation()), b))
            draw->AddLine(a, b, color, 1.5f * ui);
        }
      };
      if (d.onion)
        for (int k : {-6, -3, 3, 6}) {
          const float t = p.time() + static_cast<float>(k) * frame;
          if (t < 0 || t > clip->duration()) continue;
          if (!Playback::pose_at(animated, p.clip(), t, ghost_cache_, ghost_locals_, ghost_model_)) break;
          const int alpha = std::abs(k) == 3 ? 170 : 90;
          draw_pose(k < 0 ? IM_COL32(110, 160, 255, alpha) : IM_COL32(110, 230, 140, alpha));
        }
      if (d.trail && selected_joint >= 0 && selected_joint < animated.skeleton.joint_count()) {
        // The joint's path in model space, sampled once per clip and joint (not every frame).
        const auto key = std::make_tuple(&animated, p.clip(), selected_joint);
        if (key != trail_for_) {
          trail_points_.clear();
          const int steps = std::min(static_cast<int>(clip->duration() / frame) + 1, 2000);
          for (int i = 0; i <= steps; ++i) {
            const float t = std::min(static_cast<float>(i) * frame, clip->duration());
            if (!Playback::pose_at(animated, p.clip(), t, ghost_cache_, ghost_locals_, ghost_model_)) break;
            trail_points_.push_back(ghost_model_[selected_joint].translation());
          }
          trail_for_ = key;
        }
        ImVec2 previous;
        bool have_previous = false;
        for (const Vec3& position : trail_points_) {
          ImVec2 at;
          const bool visible = project(s, transform_point(world, position), at);
          if (visible && have_previous) draw->AddLine(previous, at, IM_COL32(255, 150, 60, 220), 1.5f * ui);
          if (visible) draw->AddCircleFilled(at, 1.5f * ui, IM_COL32(255, 150, 60, 220));
          previous = at;
          have_previous = visible;
        }
      }
    }
    if (d.joint_axes || d.joint_names) {
      const auto model = s.shown_model();
      const Skeleton& skeleton = p.animated_asset().skeleton;
      const float axis = std::max(s.doc->hi.y - s.doc->lo.y, 1e-3f) * 0.04f;
      for (int j = 0; j < static_cast<int>(model.size()); ++j) {
        const Mat4 joint = world * model[j];
        ImVec2 at;
        if (!project(s, joint.translation(), at)) continue;
        if (d.joint_axes) {  // x red, y green, z blue, each 4 % of the character's height
          const ImU32 colors[3] = {IM_COL32(255, 80, 70, 255), IM_COL32(80, 230, 80, 255),
                                   IM_COL32(90, 140, 255, 255)};
          for (int k = 0; k < 3; ++k) {
            const Vec3 direction = normalize(Vec3{joint.at(0, k), joint.at(1, k), joint.at(2, k)});
            ImVec2 tip;
            if (project(s, joint.translation() + direction * axis, tip))
              draw->AddLine(at, tip, colors[k], 1.5f * ui);
          }
        }
        if (d.joint_names)
          draw->AddText(ImVec2(at.x + 4 * ui, at.y - 6 * ui),
                        j == selected_joint ? IM_COL32(255, 170, 60, 255) : IM_COL32(230, 230, 230, 220),
                        skeleton.name(j).c_str());
      }
    }
    draw->PopClipRect();
    if (!s.doc->baked_error.empty() && (d.skinning == kSkinBaked || d.crowd > 0))
      draw->AddText(ImVec2(l.scene_x + 8, l.scene_y + 8), IM_COL32(255, 120, 100, 255),
                    ("baked path unavailable: " + s.doc->baked_error).c_str());
    else if (d.skinning == kSkinBaked && s.drawn_skinning != kSkinBaked)
      draw->AddText(ImVec2(l.scene_x + 8, l.scene_y + 8), IM_COL32(255, 200, 90, 255),
                    ("baked path off: " + s.baked_limit() + "\n(drawn with GPU palettes)").c_str());
  }

  void keys(ViewState& s, const KeyInput& keys, bool) override {
    if (s.doc && keys.pressed('F')) s.camera.refit(s.doc->lo, s.doc->hi, s.layout.scene_w / s.layout.scene_h);
  }

  void opened(ViewState&) override { trail_for_ = {nullptr, -2, -1}; }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("view", Needs::kDocument, [](const ActionCall& c) {
      c.s.camera.look_from(c.word(0) == "side"  ? OrbitCamera::View::kSide
                           : c.word(0) == "top" ? OrbitCamera::View::kTop
                                                : OrbitCamera::View::kFront);
      return true;
    });
    const std::pair<const char*, bool Display::*> switches[] = {
        {"follow", &Display::follow},         {"onion", &Display::onion},
        {"trail", &Display::trail},           {"joint-names", &Display::joint_names},
        {"joint-axes", &Display::joint_axes}, {"bind-pose", &Display::bind_pose}};
    for (const auto& [verb, member] : switches)
      table.add(verb, Needs::kDocument,
                [member = member](const ActionCall& c) { return c.s.display.*member = c.on(0), true; });
  }

 private:
  // Morph weights come from the playback's clip; the matcher's clips drive the skeleton only.
  static std::span<const float> morph_weights(const ViewState& s) {
    if (s.matching && s.matching_on) return {};
    return s.doc->playback->animator().morph_weights();
  }

  // Motion matching's overlay: the trajectory the stick asks for (blue), the one the playing frame's motion
  // takes (orange), each 20, 40 and 60 database frames ahead with its facing, and the feet's velocities
  // (green, 0.1 s long) from the playing frame's features.
  void draw_matching(const ViewState& s, ImDrawList* draw) const {
    const MotionMatchingSession& m = *s.matching;
    const float ui = s.ui_scale;
    auto path = [&](const std::array<Vec3, 4>& points, ImU32 color) {
      ImVec2 a, b;
      for (size_t i = 0; i + 1 < points.size(); ++i)
        if (project(s, points[i], a) && project(s, points[i + 1], b)) draw->AddLine(a, b, color, 2.5f * ui);
      for (size_t i = 1; i < points.size(); ++i)
        if (project(s, points[i], a)) draw->AddCircleFilled(a, 4 * ui, color);
    };
    path(m.desired(), IM_COL32(90, 170, 255, 255));
    path(m.matched(), IM_COL32(255, 160, 60, 255));
    const auto feet = m.feet(), velocities = m.feet_velocities();
    for (int side = 0; side < 2; ++side) {
      ImVec2 a, b;
      if (project(s, feet[side], a) && project(s, feet[side] + velocities[side] * 0.1f, b)) {
        draw->AddLine(a, b, IM_COL32(110, 230, 140, 255), 2 * ui);
        draw->AddCircleFilled(a, 3 * ui, IM_COL32(110, 230, 140, 255));
      }
    }
  }

  static bool project(const ViewState& s, Vec3 world, ImVec2& out) {
    const Mat4& m = s.view_proj;
    const Layout& l = s.layout;
    const float x = m.m[0] * world.x + m.m[4] * world.y + m.m[8] * world.z + m.m[12];
    const float y = m.m[1] * world.x + m.m[5] * world.y + m.m[9] * world.z + m.m[13];
    const float w = m.m[3] * world.x + m.m[7] * world.y + m.m[11] * world.z + m.m[15];
    if (w <= 1e-6f) return false;
    out =
        ImVec2(l.scene_x + (x / w * 0.5f + 0.5f) * l.scene_w, l.scene_y + (0.5f - y / w * 0.5f) * l.scene_h);
    return true;
  }

  bool dragging_ = false;
  ImVec2 press_{}, last_{};
  std::vector<Vec3> trail_points_;  // the selected joint's path in model space, for trail_for_
  std::tuple<const CharacterAsset*, int, int> trail_for_{nullptr, -2, -1};  // asset, clip, joint
  SamplingCache ghost_cache_;
  std::vector<JointPose> ghost_locals_;
  std::vector<Mat4> ghost_model_;
};

}  // namespace

std::unique_ptr<ScenePanel> make_scene_panel() {
  return std::make_unique<SceneView>();
}

}  // namespace ossa::viewer
