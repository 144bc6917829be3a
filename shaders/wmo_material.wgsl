// WMO material: Bevy's PBR fragment with two WMO rules on top. Vertex colours (MOCV, after the fix the
// loader applies) hold baked lighting at half intensity, so they modulate at twice their value; and
// alpha-key materials discard below the material's cutoff (StandardMaterial's mask). The blend factors of
// modes 2–7 are set on the pipeline, not here.

#import bevy_pbr::{
    pbr_fragment::pbr_input_from_standard_material,
    pbr_functions::alpha_discard,
    pbr_types::STANDARD_MATERIAL_FLAGS_UNLIT_BIT,
}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::{
    prepass_io::{VertexOutput, FragmentOutput},
    pbr_deferred_functions::deferred_output,
}
#else
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_functions::{apply_pbr_lighting, main_pass_post_lighting_processing},
}
#endif

struct WmoMaterialParams {
    vertex_color_scale: f32,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> wmo: WmoMaterialParams;

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
#ifdef VERTEX_COLORS
    // The standard input already multiplied the base colour by the vertex colour once.
    let scaled = min(pbr_input.material.base_color.rgb * wmo.vertex_color_scale, vec3(1.0));
    pbr_input.material.base_color = vec4(scaled, pbr_input.material.base_color.a);
#endif
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);
#ifdef PREPASS_PIPELINE
    let out = deferred_output(in, pbr_input);
#else
    var out: FragmentOutput;
    if (pbr_input.material.flags & STANDARD_MATERIAL_FLAGS_UNLIT_BIT) == 0u {
        out.color = apply_pbr_lighting(pbr_input);
    } else {
        out.color = pbr_input.material.base_color;
    }
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
#endif
    return out;
}
