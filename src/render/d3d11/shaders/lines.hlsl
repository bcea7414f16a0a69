// Lines (ground grid, skeleton) of the Direct3D 11 backend: position and colour per vertex.

cbuffer Lines : register(b0) {
  float4 view_proj[4];  // columns of the view-projection (Direct3D depth: [0, 1])
};

struct VertexIn {
  float3 position : POSITION;
  float3 color : COLOR;
};

struct VertexOut {
  float4 clip_position : SV_Position;
  float3 color : COLOR;
};

VertexOut vs_main(VertexIn v) {
  VertexOut o;
  o.clip_position = view_proj[0] * v.position.x + view_proj[1] * v.position.y + view_proj[2] * v.position.z +
                    view_proj[3];
  o.color = v.color;
  return o;
}

float4 ps_main(VertexOut i) : SV_Target { return float4(i.color, 1.0); }
