// ossa/ossa.h — everything in one include.
//
//   #include <ossa/ossa.h>
//
// Always the runtime (ossa::runtime): math, assets, jobs, Animator, notifies, crowd, .ossa loading. With
// ossa::offline linked (it defines OSSA_HAS_OFFLINE) also what builds and transforms assets once:
// compression, root-motion extraction, retargeting's rigs and bakes, clip builders, glTF export. With
// ossa::import linked (it defines OSSA_HAS_IMPORT for its users) also the import API and load_character();
// with ossa::render (OSSA_HAS_RENDER) the renderer (OpenGL on Linux, Direct3D 11 on Windows) and image
// output. Not the reference evaluator (reference/reference_eval.h): it is the tests' slow, obviously
// correct oracle, for tools that check Ossa, not for games.
#pragma once

#include "ossa/asset/character.h"
#include "ossa/asset/clip.h"
#include "ossa/asset/clip_names.h"
#include "ossa/asset/notifies.h"
#include "ossa/asset/raw.h"
#include "ossa/asset/root_motion.h"
#include "ossa/asset/skeleton.h"
#include "ossa/asset/skinned_mesh.h"
#include "ossa/core/math.h"
#include "ossa/core/result.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/blend_space.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/foot_placement.h"
#include "ossa/runtime/ik_job.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/playhead.h"
#include "ossa/runtime/pose.h"
#include "ossa/runtime/pose_evaluator.h"
#include "ossa/runtime/retarget.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/runtime/thread_pool.h"
#include "ossa/serialize/load.h"
#include "ossa/serialize/ossa_file.h"

#if defined(OSSA_HAS_OFFLINE)
#include "ossa/offline/clip_builder.h"
#include "ossa/offline/compression.h"
#include "ossa/offline/morph_compression.h"
#include "ossa/offline/retarget.h"
#include "ossa/offline/root_motion.h"
#include "ossa/serialize/gltf_export.h"
#endif

#if defined(OSSA_HAS_IMPORT)
#include "ossa/import/convert.h"
#include "ossa/import/import.h"
#include "ossa/import/imported_scene.h"
#include "ossa/import/load_character.h"
#endif

#if defined(OSSA_HAS_RENDER)
#include "ossa/render/baked_animation.h"
#include "ossa/render/image.h"
#include "ossa/render/renderer.h"
#if defined(OSSA_HAS_GL)
#include "ossa/render/gl_renderer.h"
#endif
#if defined(OSSA_HAS_D3D11)
#include "ossa/render/d3d11_renderer.h"
#endif
#endif
