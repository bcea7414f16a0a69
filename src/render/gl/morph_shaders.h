// Internal: the GLSL of morph targets on the palette path (layout and slots: src/render/morph_plan.h). Goes
// into the character vertex shader before kCharacterVertexMain, which calls apply_morphs() in palette mode.
#pragma once

namespace ossa::detail {

enum : int { kUnitMorphDeltas = 6 };  // texture unit of the delta texture

// MorphJob's sum over the draw's active targets, in target order: position += w x delta, normal likewise
// (not renormalised here; the fragment shader normalises). A vertex outside a target's window is not moved
// by it.
inline const char* kMorphVertexFunctions = R"(
uniform int u_morph_count;  // active targets in u_morph (0: none)
uniform vec4 u_morph[8];    // per active target: weight, first texel, first vertex, vertex count
layout(binding = 6) uniform sampler2D u_morph_deltas;  // 4096 texels a row: position delta, normal delta

void apply_morphs(inout vec3 position, inout vec3 normal) {
  for (int s = 0; s < u_morph_count; ++s) {
    const vec4 target = u_morph[s];
    const int local = gl_VertexID - int(target.z);
    if (local < 0 || local >= int(target.w)) continue;
    const int texel = int(target.y) + 2 * local;
    const ivec2 at = ivec2(texel & 4095, texel >> 12);
    position += target.x * texelFetch(u_morph_deltas, at, 0).xyz;
    normal += target.x * texelFetch(u_morph_deltas, at + ivec2(1, 0), 0).xyz;
  }
}
)";

}  // namespace ossa::detail
