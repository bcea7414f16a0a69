#include "fbx_ascii_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace ossa::test {
namespace {

constexpr int64_t kTicksPerSecond = 46186158000;          // FBX KTime
constexpr int64_t kTicksPerFrame = kTicksPerSecond / 30;  // TimeMode 6: 30 fps
constexpr double kPi = 3.14159265358979323846;

int64_t frames(double f) {
  return static_cast<int64_t>(std::llround(f * static_cast<double>(kTicksPerFrame)));
}

// Rounded to 1e-6 (no "2.4492935982947064e-16" for sin(pi)), without "-0".
std::string num(double v) {
  v = std::round(v * 1e6) / 1e6;
  if (v == 0) return "0";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string num(int64_t v) {
  return std::to_string(v);
}

template <typename T>
std::string list(const std::vector<T>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += num(values[i]);
  }
  return out;
}

// "\t\tName: *N {\n\t\t\ta: ...\n\t\t} \n" at the given indentation.
template <typename T>
std::string array(const std::string& indent, const char* name, const std::vector<T>& values) {
  return indent + name + ": *" + std::to_string(values.size()) + " {\n" + indent + "\ta: " + list(values) +
         "\n" + indent + "} \n";
}

std::string p_vector(const char* name, const char* type, const char* flags, double x, double y, double z) {
  return std::string("\t\t\tP: \"") + name + "\", \"" + type + "\", \"\", \"" + flags + "\"," + num(x) + "," +
         num(y) + "," + num(z) + "\n";
}

std::string p_ktime(const char* name, int64_t t) {
  return std::string("\t\t\tP: \"") + name + "\", \"KTime\", \"Time\", \"\"," + num(t) + "\n";
}

struct Vec3 {
  double x = 0, y = 0, z = 0;
};

// Objects and connections of one file, written in the order they are added.
class FbxAscii {
 public:
  int64_t id() { return next_id_++; }

  // `type` is the object kind ("Model", "Geometry", ...), `name` the "Kind::Name" string, `klass` its class.
  void object(const char* type, int64_t id, const std::string& name, const std::string& klass,
              const std::string& body) {
    objects_ += std::string("\t") + type + ": " + num(id) + ", \"" + name + "\", \"" + klass + "\" {\n" +
                body + "\t}\n";
    ++counts_[type];
  }
  void connect(int64_t child, int64_t parent, const std::string& comment) {
    connections_ += "\t\n\t;" + comment + "\n\tC: \"OO\"," + num(child) + "," + num(parent) + "\n";
  }
  void connect_property(int64_t child, int64_t parent, const std::string& property,
                        const std::string& comment) {
    connections_ +=
        "\t\n\t;" + comment + "\n\tC: \"OP\"," + num(child) + "," + num(parent) + ", \"" + property + "\"\n";
  }

  std::string finish(const std::string& application, const std::string& active_stack,
                     int64_t span_stop) const {
    std::string out;
    out += "; FBX 7.4.0 project file\n";
    out += "; Written by Ossa's tests (tests/fbx_ascii_writer.cpp): a fixture, not an exported scene\n";
    out += "; ----------------------------------------------------\n\n";
    out += "FBXHeaderExtension:  {\n";
    out += "\tFBXHeaderVersion: 1003\n";
    out += "\tFBXVersion: 7400\n";
    out +=
        "\tCreationTimeStamp:  {\n\t\tVersion: 1000\n\t\tYear: 2024\n\t\tMonth: 1\n\t\tDay: 1\n"
        "\t\tHour: 0\n\t\tMinute: 0\n\t\tSecond: 0\n\t\tMillisecond: 0\n\t}\n";
    out += "\tCreator: \"FBX SDK/FBX Plugins version 2019.2\"\n";
    out += "\tSceneInfo: \"SceneInfo::GlobalInfo\", \"UserData\" {\n";
    out += "\t\tType: \"UserData\"\n\t\tVersion: 100\n";
    out += "\t\tProperties70:  {\n";
    out += "\t\t\tP: \"Original\", \"Compound\", \"\", \"\"\n";
    out += "\t\t\tP: \"Original|ApplicationVendor\", \"KString\", \"\", \"\", \"Autodesk\"\n";
    out += "\t\t\tP: \"Original|ApplicationName\", \"KString\", \"\", \"\", \"" + application + "\"\n";
    out += "\t\t}\n\t}\n}\n";

    out += "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n";
    out += "\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n";
    out += "\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n";
    out += "\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"OriginalUpAxis\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"OriginalUpAxisSign\", \"int\", \"Integer\", \"\",1\n";
    out += "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n";
    out += "\t\tP: \"OriginalUnitScaleFactor\", \"double\", \"Number\", \"\",1\n";
    out += "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n";
    out += "\t\tP: \"TimeSpanStart\", \"KTime\", \"Time\", \"\",0\n";
    out += "\t\tP: \"TimeSpanStop\", \"KTime\", \"Time\", \"\"," + num(span_stop) + "\n";
    out += "\t\tP: \"CustomFrameRate\", \"double\", \"Number\", \"\",-1\n";
    out += "\t}\n}\n\n";

    out += "Documents:  {\n\tCount: 1\n\tDocument: 1000, \"\", \"Scene\" {\n\t\tProperties70:  {\n";
    out += "\t\t\tP: \"SourceObject\", \"object\", \"\", \"\"\n";
    out += "\t\t\tP: \"ActiveAnimStackName\", \"KString\", \"\", \"\", \"" + active_stack + "\"\n";
    out += "\t\t}\n\t\tRootNode: 0\n\t}\n}\n\n";
    out += "References:  {\n}\n\n";

    int total = 1;
    for (const auto& [type, count] : counts_) total += count;
    out += "Definitions:  {\n\tVersion: 100\n\tCount: " + std::to_string(total) + "\n";
    out += "\tObjectType: \"GlobalSettings\" {\n\t\tCount: 1\n\t}\n";
    for (const auto& [type, count] : counts_)
      out += "\tObjectType: \"" + type + "\" {\n\t\tCount: " + std::to_string(count) + "\n\t}\n";
    out += "}\n\n";

    out += "Objects:  {\n" + objects_ + "}\n\n";
    out += "Connections:  {\n" + connections_ + "}\n";
    return out;
  }

 private:
  int64_t next_id_ = 100000;
  std::string objects_;
  std::string connections_;
  std::map<std::string, int> counts_;
};

struct Rig {
  std::map<std::string, int64_t> joints;  // name -> Model id
};

std::string model_body(Vec3 translation, Vec3 rotation = {}) {
  std::string body = "\t\tVersion: 232\n\t\tProperties70:  {\n";
  body += "\t\t\tP: \"InheritType\", \"enum\", \"\", \"\",1\n";
  body += "\t\t\tP: \"DefaultAttributeIndex\", \"int\", \"Integer\", \"\",0\n";
  body += p_vector("Lcl Translation", "Lcl Translation", "A", translation.x, translation.y, translation.z);
  if (rotation.x != 0 || rotation.y != 0 || rotation.z != 0)
    body += p_vector("Lcl Rotation", "Lcl Rotation", "A", rotation.x, rotation.y, rotation.z);
  body += "\t\t}\n\t\tShading: T\n\t\tCulling: \"CullingOff\"\n";
  return body;
}

// FBX matrices as written: column-major, translation in elements 12-14.
std::vector<double> translation_matrix(Vec3 t) {
  return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, t.x, t.y, t.z, 1};
}

// Hips > Spine > Head, and the skinned "Body" mesh with its Skin, Clusters and BindPose.
Rig add_rig(FbxAscii& f) {
  Rig rig;
  struct Joint {
    const char* name;
    const char* parent;
    Vec3 local;
    Vec3 global;
  };
  const Joint joints[] = {{"Hips", nullptr, {0, 100, 0}, {0, 100, 0}},
                          {"Spine", "Hips", {0, 20, 0}, {0, 120, 0}},
                          {"Head", "Spine", {0, 30, 0}, {0, 150, 0}}};
  for (const Joint& j : joints) {
    const int64_t attribute = f.id();
    f.object("NodeAttribute", attribute, std::string("NodeAttribute::") + j.name, "LimbNode",
             "\t\tProperties70:  {\n\t\t\tP: \"Size\", \"double\", \"Number\", \"\",10\n\t\t}\n"
             "\t\tTypeFlags: \"Skeleton\"\n");
    const int64_t model = f.id();
    f.object("Model", model, std::string("Model::") + j.name, "LimbNode", model_body(j.local));
    rig.joints[j.name] = model;
    f.connect(model, j.parent ? rig.joints[j.parent] : 0,
              std::string("Model::") + j.name + ", Model::" + (j.parent ? j.parent : "RootNode"));
    f.connect(attribute, model, std::string("NodeAttribute::") + j.name + ", Model::" + j.name);
  }

  // A ribbon 20 cm wide from y = 95 to 155: rows of 2 vertices, 2 triangles between rows.
  const double rows[] = {95, 115, 135, 155};
  std::vector<double> vertices;
  for (double y : rows) vertices.insert(vertices.end(), {-10, y, 0, 10, y, 0});
  std::vector<int64_t> polygons;  // the last index of each polygon is written as -(index + 1)
  std::vector<double> normals, uvs;
  std::vector<int64_t> uv_index;
  for (int64_t r = 0; r < 3; ++r) {
    const int64_t a = 2 * r, b = a + 1, c = a + 3, d = a + 2;
    for (int64_t i : {a, b, c, a, c, d}) {
      normals.insert(normals.end(), {0, 0, 1});
      uv_index.push_back(i);
    }
    polygons.insert(polygons.end(), {a, b, -(c + 1), a, c, -(d + 1)});
  }
  for (int r = 0; r < 4; ++r) uvs.insert(uvs.end(), {0, r / 3.0, 1, r / 3.0});

  const int64_t geometry = f.id();
  std::string g = array("\t\t", "Vertices", vertices) + array("\t\t", "PolygonVertexIndex", polygons);
  g += "\t\tGeometryVersion: 124\n";
  g += "\t\tLayerElementNormal: 0 {\n\t\t\tVersion: 102\n\t\t\tName: \"\"\n";
  g += "\t\t\tMappingInformationType: \"ByPolygonVertex\"\n\t\t\tReferenceInformationType: \"Direct\"\n";
  g += array("\t\t\t", "Normals", normals) + "\t\t}\n";
  g += "\t\tLayerElementUV: 0 {\n\t\t\tVersion: 101\n\t\t\tName: \"map1\"\n";
  g += "\t\t\tMappingInformationType: \"ByPolygonVertex\"\n\t\t\tReferenceInformationType: "
       "\"IndexToDirect\"\n";
  g += array("\t\t\t", "UV", uvs) + array("\t\t\t", "UVIndex", uv_index) + "\t\t}\n";
  g += "\t\tLayerElementMaterial: 0 {\n\t\t\tVersion: 101\n\t\t\tName: \"\"\n";
  g += "\t\t\tMappingInformationType: \"AllSame\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n";
  g += array("\t\t\t", "Materials", std::vector<int64_t>{0}) + "\t\t}\n";
  g += "\t\tLayer: 0 {\n\t\t\tVersion: 100\n";
  g += "\t\t\tLayerElement:  {\n\t\t\t\tType: \"LayerElementNormal\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n";
  g += "\t\t\tLayerElement:  {\n\t\t\t\tType: \"LayerElementMaterial\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n";
  g += "\t\t\tLayerElement:  {\n\t\t\t\tType: \"LayerElementUV\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n";
  g += "\t\t}\n";
  f.object("Geometry", geometry, "Geometry::BodyShape", "Mesh", g);
  const int64_t body = f.id();
  f.object("Model", body, "Model::Body", "Mesh", model_body({}));
  f.connect(body, 0, "Model::Body, Model::RootNode");
  f.connect(geometry, body, "Geometry::BodyShape, Model::Body");
  const int64_t material = f.id();
  f.object("Material", material, "Material::BodyMaterial", "",
           "\t\tVersion: 102\n\t\tShadingModel: \"lambert\"\n\t\tMultiLayer: 0\n\t\tProperties70:  {\n" +
               p_vector("DiffuseColor", "Color", "A", 0.8, 0.6, 0.5) + "\t\t}\n");
  f.connect(material, body, "Material::BodyMaterial, Model::Body");

  const int64_t skin = f.id();
  f.object("Deformer", skin, "Deformer::BodySkin", "Skin",
           "\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t\tSkinningType: \"Linear\"\n");
  f.connect(skin, geometry, "Deformer::BodySkin, Geometry::BodyShape");
  struct Influence {
    const char* joint;
    std::vector<int64_t> indexes;
    std::vector<double> weights;
    Vec3 global;
  };
  const Influence influences[] = {{"Hips", {0, 1, 2, 3}, {1, 1, 0.5, 0.5}, {0, 100, 0}},
                                  {"Spine", {2, 3, 4, 5, 6, 7}, {0.5, 0.5, 1, 1, 0.3, 0.3}, {0, 120, 0}},
                                  {"Head", {6, 7}, {0.7, 0.7}, {0, 150, 0}}};
  for (const Influence& in : influences) {
    const int64_t cluster = f.id();
    std::string c = "\t\tVersion: 100\n\t\tUserData: \"\", \"\"\n";
    c += array("\t\t", "Indexes", in.indexes) + array("\t\t", "Weights", in.weights);
    c += array("\t\t", "Transform", translation_matrix({-in.global.x, -in.global.y, -in.global.z}));
    c += array("\t\t", "TransformLink", translation_matrix(in.global));
    f.object("Deformer", cluster, std::string("SubDeformer::") + in.joint, "Cluster", c);
    f.connect(cluster, skin, std::string("SubDeformer::") + in.joint + ", Deformer::BodySkin");
    f.connect(rig.joints[in.joint], cluster,
              std::string("Model::") + in.joint + ", SubDeformer::" + in.joint);
  }

  std::string pose = "\t\tType: \"BindPose\"\n\t\tVersion: 100\n\t\tNbPoseNodes: 4\n";
  auto pose_node = [&](int64_t node, Vec3 global) {
    pose += "\t\tPoseNode:  {\n\t\t\tNode: " + num(node) + "\n";
    pose += array("\t\t\t", "Matrix", translation_matrix(global)) + "\t\t}\n";
  };
  pose_node(body, {});
  for (const Joint& j : joints) pose_node(rig.joints[j.name], j.global);
  f.object("Pose", f.id(), "Pose::BindPose", "BindPose", pose);
  return rig;
}

// One animated property of one joint: key times (KTime) and X, Y, Z values.
struct Track {
  std::string joint;
  std::string property;  // "Lcl Translation" or "Lcl Rotation"
  std::vector<int64_t> times;
  std::vector<double> x, y, z;
};

void add_stack(FbxAscii& f, const Rig& rig, const std::string& name, int64_t start, int64_t stop,
               const std::vector<Track>& tracks) {
  const int64_t stack = f.id();
  std::string s = "\t\tProperties70:  {\n";
  s += p_ktime("LocalStart", start) + p_ktime("LocalStop", stop);
  s += p_ktime("ReferenceStart", start) + p_ktime("ReferenceStop", stop);
  s += "\t\t}\n";
  f.object("AnimationStack", stack, "AnimStack::" + name, "", s);
  const int64_t layer = f.id();
  f.object("AnimationLayer", layer, "AnimLayer::BaseLayer", "", "");
  f.connect(layer, stack, "AnimLayer::BaseLayer, AnimStack::" + name);

  for (const Track& t : tracks) {
    const bool rotation = t.property == "Lcl Rotation";
    const std::string short_name = rotation ? "R" : "T";
    const int64_t node = f.id();
    std::string n = "\t\tProperties70:  {\n";
    const std::vector<double>* axes[] = {&t.x, &t.y, &t.z};
    const char* axis_names[] = {"d|X", "d|Y", "d|Z"};
    for (int a = 0; a < 3; ++a)
      n += std::string("\t\t\tP: \"") + axis_names[a] + "\", \"Number\", \"\", \"A\"," +
           num(axes[a]->front()) + "\n";
    n += "\t\t}\n";
    f.object("AnimationCurveNode", node, "AnimCurveNode::" + short_name, "", n);
    f.connect(node, layer, "AnimCurveNode::" + short_name + ", AnimLayer::BaseLayer");
    f.connect_property(node, rig.joints.at(t.joint), t.property,
                       "AnimCurveNode::" + short_name + ", Model::" + t.joint);
    for (int a = 0; a < 3; ++a) {
      const int64_t curve = f.id();
      std::string c = "\t\tDefault: " + num(axes[a]->front()) + "\n\t\tKeyVer: 4009\n";
      c += array("\t\t", "KeyTime", t.times) + array("\t\t", "KeyValueFloat", *axes[a]);
      c += "\t\t;KeyAttrFlags: Linear\n" + array("\t\t", "KeyAttrFlags", std::vector<int64_t>{4});
      c += array("\t\t", "KeyAttrDataFloat", std::vector<double>{0, 0, 0, 0});
      c += array("\t\t", "KeyAttrRefCount", std::vector<int64_t>{static_cast<int64_t>(t.times.size())});
      f.object("AnimationCurve", curve, "AnimCurve::", "", c);
      f.connect_property(curve, node, axis_names[a], "AnimCurve::, AnimCurveNode::" + short_name);
    }
  }
}

// Keys at the given frames; values from smooth functions of the key's time in seconds (no jump near 180
// degrees between keys, which would make assimp insert keys).
Track rotation_track(const std::string& joint, const std::vector<double>& key_frames, double amplitude) {
  Track t{joint, "Lcl Rotation", {}, {}, {}, {}};
  for (double fr : key_frames) {
    const double s = fr / 30.0;
    t.times.push_back(frames(fr));
    t.x.push_back(amplitude * std::sin(kPi * s));
    t.y.push_back(0.5 * amplitude * std::cos(kPi * s));
    t.z.push_back(5 * s);
  }
  return t;
}

Track translation_track(const std::string& joint, const std::vector<double>& key_frames, Vec3 rest) {
  Track t{joint, "Lcl Translation", {}, {}, {}, {}};
  for (double fr : key_frames) {
    const double s = fr / 30.0;
    t.times.push_back(frames(fr));
    t.x.push_back(rest.x + 2 * std::sin(kPi * s));
    t.y.push_back(rest.y + 3 * s);
    t.z.push_back(rest.z + 10 * s);
  }
  return t;
}

std::vector<double> every(double step, double last) {
  std::vector<double> out;
  for (double fr = 0; fr <= last + 1e-9; fr += step) out.push_back(fr);
  return out;
}

}  // namespace

std::string fbx_with_take_offsets() {
  FbxAscii f;
  const Rig rig = add_rig(f);

  // TakeA: keys 0-2 s, the take from frame 25 (0.8333 s) to 60.
  const std::vector<double> a = every(15, 60);
  add_stack(f, rig, "TakeA", frames(25), frames(60),
            {translation_track("Hips", a, {0, 100, 0}), rotation_track("Hips", a, 20),
             translation_track("Spine", a, {0, 20, 0}), rotation_track("Spine", a, 15),
             rotation_track("Head", a, 10)});

  // TakeB: keys 0-3 s, the take from frame 45 (1.5 s) to 90.
  const std::vector<double> b = every(15, 90);
  add_stack(f, rig, "TakeB", frames(45), frames(90),
            {translation_track("Hips", b, {0, 100, 0}), rotation_track("Hips", b, 30),
             rotation_track("Spine", b, 12), translation_track("Head", b, {0, 30, 0}),
             rotation_track("Head", b, 8)});

  // TakeC: keys 0-2 s, the take from frame 15 (0.5 s) to 45; the Spine's translation has a key 5000 ticks
  // before the start (within assimp's margin of 10000 ticks).
  const std::vector<double> c = every(10, 60);
  Track spine = translation_track("Spine", {0, 15, 30, 45, 60}, {0, 20, 0});
  spine.times[1] = frames(15) - 5000;
  add_stack(f, rig, "TakeC", frames(15), frames(45),
            {translation_track("Hips", c, {0, 100, 0}), rotation_track("Hips", c, 25), spine,
             rotation_track("Head", c, 10)});

  return f.finish("3ds Max", "TakeA", frames(90));
}

std::string fbx_with_curve_object() {
  FbxAscii f;
  const Rig rig = add_rig(f);

  // One static pose: two keys with equal values on each curve, the Spine bent 10 degrees.
  auto constant = [](const std::string& joint, const char* property, Vec3 v) {
    return Track{joint, property, {0, frames(30)}, {v.x, v.x}, {v.y, v.y}, {v.z, v.z}};
  };
  add_stack(f, rig, "Pose", 0, frames(30),
            {constant("Hips", "Lcl Translation", {0, 98, 2}), constant("Hips", "Lcl Rotation", {0, 15, 0}),
             constant("Spine", "Lcl Rotation", {10, 0, 0})});

  // A closed loop of 8 points, radius 30 cm, around the feet: a Line geometry (FbxLine).
  std::vector<double> points;
  std::vector<int64_t> indices;
  for (int i = 0; i < 8; ++i) {
    const double angle = i * kPi / 4;
    points.insert(points.end(), {30 * std::cos(angle), 0, 30 * std::sin(angle)});
    indices.push_back(i);
  }
  const int64_t line = f.id();
  f.object("Geometry", line, "Geometry::CTRL_RootShape", "Line",
           "\t\tType: \"Line\"\n\t\tVersion: 100\n" + array("\t\t", "Points", points) +
               array("\t\t", "PointsIndex", indices));
  const int64_t root_ctrl = f.id();
  f.object("Model", root_ctrl, "Model::CTRL_Root", "Line", model_body({}));
  f.connect(root_ctrl, 0, "Model::CTRL_Root, Model::RootNode");
  f.connect(line, root_ctrl, "Geometry::CTRL_RootShape, Model::CTRL_Root");

  // A NURBS circle as Maya writes it (degree 3, periodic: 8 spans, 11 CVs with weights, knots -2..12).
  std::vector<double> cvs;
  std::vector<double> knots;
  for (int i = 0; i < 11; ++i) {
    const double angle = (i % 8) * kPi / 4 + kPi / 8;
    cvs.insert(cvs.end(), {25 * std::cos(angle), 0, 25 * std::sin(angle), 1});
  }
  for (int k = -2; k <= 12; ++k) knots.push_back(k);
  const int64_t nurbs = f.id();
  std::string n = "\t\tType: \"NurbsCurve\"\n\t\tNurbsCurveVersion: 100\n\t\tOrder: 4\n\t\tDimension: 3\n";
  n += "\t\tForm: \"Periodic\"\n\t\tRational: 0\n";
  n += array("\t\t", "Points", cvs) + array("\t\t", "KnotVector", knots);
  f.object("Geometry", nurbs, "Geometry::CTRL_SpineShape", "NurbsCurve", n);
  const int64_t spine_ctrl = f.id();
  f.object("Model", spine_ctrl, "Model::CTRL_Spine", "NurbsCurve", model_body({0, 120, 0}));
  f.connect(spine_ctrl, 0, "Model::CTRL_Spine, Model::RootNode");
  f.connect(nurbs, spine_ctrl, "Geometry::CTRL_SpineShape, Model::CTRL_Spine");

  return f.finish("Maya", "Pose", frames(30));
}

}  // namespace ossa::test
