#include "viewer/retarget_session.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ossa/core/file_io.h"
#include "ossa/offline/retarget.h"
#include "ossa/runtime/local_to_model_job.h"

namespace ossa::viewer {

Result<RetargetSession> RetargetSession::create(std::shared_ptr<const LoadedCharacter> source,
                                                std::shared_ptr<const LoadedCharacter> target,
                                                const std::string& explicit_json) {
  using R = Result<RetargetSession>;
  if (!source || !target) return R::failure("retarget: two characters are needed");
  RetargetSession session;
  session.source_ = std::move(source);
  session.target_ = std::move(target);
  auto map = build_bone_map(session.source_->asset.skeleton, session.target_->asset.skeleton,
                            {.explicit_json = explicit_json});
  if (!map) return R::failure(map.error());
  session.map_ = std::move(map).value();
  auto rig =
      RetargetRig::build(session.source_->asset.skeleton, session.target_->asset.skeleton, session.map_);
  if (!rig) return R::failure(rig.error());
  session.rig_ = std::move(rig).value();
  session.scratch_ = std::make_unique<RetargetScratch>(session.rig_);
  session.target_locals_.resize(static_cast<size_t>(session.target_->asset.skeleton.joint_count()));
  return session;
}

std::string RetargetSession::set_source(int target_joint, int source_joint) {
  const Skeleton& source = source_->asset.skeleton;
  const Skeleton& target = target_->asset.skeleton;
  if (target_joint < 0 || target_joint >= target.joint_count()) return "no such target joint";
  if (source_joint < -1 || source_joint >= source.joint_count()) return "no such source joint";
  if (map_.source_of[target_joint] == source_joint) return "";
  for (int t = 0; t < target.joint_count(); ++t)
    if (t != target_joint && source_joint >= 0 && map_.source_of[t] == source_joint)
      return "'" + source.name(source_joint) + "' already drives '" + target.name(t) + "'";
  BoneMap edited = map_;
  edited.source_of[target_joint] = source_joint;
  auto rig = RetargetRig::build(source, target, edited);
  if (!rig) return rig.error();
  map_ = std::move(edited);
  rig_ = std::move(rig).value();
  scratch_ = std::make_unique<RetargetScratch>(rig_);
  edited_ = true;
  return "";
}

std::string RetargetSession::map_json() const {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  const Skeleton& target = target_->asset.skeleton;
  for (int t = 0; t < target.joint_count(); ++t) {
    const int s = map_.source_of[t];
    doc[target.name(t)] =
        s >= 0 ? nlohmann::ordered_json(source_->asset.skeleton.name(s)) : nlohmann::ordered_json(nullptr);
  }
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<bool> RetargetSession::save_map(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path out = std::filesystem::weakly_canonical(path_from_utf8(path), ec);
  for (const LoadedCharacter* c : {source_.get(), target_.get()})
    for (const std::string& input : c->source_files) {
      std::error_code ec2;
      if (!ec && std::filesystem::weakly_canonical(path_from_utf8(input), ec2) == out && !ec2)
        return Result<bool>::failure(path + ": not written (a file the characters were read from)");
    }
  const std::string text = map_json();
  auto written = write_file_atomically(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  if (written) edited_ = false;
  return written;
}

bool RetargetSession::pose(std::span<const JointPose> source_locals, std::span<Mat4> target_model) {
  const Skeleton& target = target_->asset.skeleton;
  if (target_model.size() != static_cast<size_t>(target.joint_count())) return false;
  return RetargetJob{
             .rig = &rig_, .source = source_locals, .scratch = scratch_.get(), .output = target_locals_}
             .run() &&
         LocalToModelJob{.skeleton = &target, .input = target_locals_, .output = target_model}.run();
}

}  // namespace ossa::viewer
