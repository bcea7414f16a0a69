// Internal: the GLSL of morph targets on the palette path (layout and slots: src/render/morph_plan.h). Goes
// into the character vertex shader before kCharacterVertexMain, which calls apply_morphs() in palette mode.
#pragma once

namespace ossa::detail {

enum : int { kUnitMorphDeltas = 6 };  // texture unit of the delta texture

// MorphJob's sum over the draw's active targets, in target order: position += w x delta, normal and tangent
// (xyz) likewise (not renormalised here; the fragment shader normalises). A vertex outside a target's window
// is not moved by it. Tangent deltas are the third texel of a mesh that has them (u_morph_texels 3).
inline const char* kMorphVertexFunctions = R"(
uniform int u_morph_count;  // active targets in u_morph (0: none)
uniform vec4 u_morph[8];    // per active target: weight, first texel, first vertex, vertex count
uniform int u_morph_texels; // texels per vertex: 2 (position, normal delta) or 3 (and tangent delta)
layout(binding = 6) uniform sampler2D u_morph_deltas;  // 4096 texels a row

vec3 morph_delta(int texel) { return texelFetch(u_morph_deltas, ivec2(texel & 4095, texel >> 12), 0).xyz; }

void apply_morphs(inout vec3 position, inout vec3 normal, inout vec3 tangent) {
  for (int s = 0; s < u_morph_count; ++s) {
    const vec4 target = u_morph[s];
    const int local = gl_VertexID - int(target.z);
    if (local < 0 || local >= int(target.w)) continue;
    const int texel = int(target.y) + u_morph_texels * local;
    position += target.x * morph_delta(texel);
    normal += target.x * morph_delta(texel + 1);
    if (u_morph_texels == 3) tangent += target.x * morph_delta(texel + 2);
  }
}
)";

}  // namespace ossa::detail
