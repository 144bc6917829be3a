//! Every input the coverage-guided fuzzers (fuzz/) found to crash, hang or over-allocate, replayed
//! through the same entry point: each must now end in a value or an error.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use lwo_wmo_viewer::{formats, mesh};

use crate::support::repo;

fn entry_point(target: &str) -> fn(&[u8]) {
    match target {
        "lwo_parse" => |b| drop(formats::lwo::parse(b)),
        "wmo_root_parse" => |b| drop(formats::wmo::parse_root(b)),
        "wmo_group_parse" => |b| drop(formats::wmo::parse_group(b)),
        "texture_decode" => |b| {
            drop(lwo_wmo_viewer::scene::texture::decode(
                b,
                "finding.blp",
                lwo_wmo_viewer::scene::texture::ImageFormat::Blp,
            ))
        },
        "mesh_build" => |b| {
            if let Ok(document) = formats::parse_document(b) {
                let options = mesh::lwo::BuildOptions { smoothing: true, subdivision_level: 1 };
                drop(mesh::StandaloneMeshes::build(&document.model, options));
            }
        },
        "m2_parse" => |b| {
            drop(formats::m2::parse_skin(b));
            if let Ok(model) = formats::m2::parse(b)
                && let Some(view) = model.view(None)
            {
                drop(mesh::m2::build(&model, view, mesh::m2::Geosets::DefaultVariants, true));
            }
        },
        other => panic!("no fuzz target named {other}"),
    }
}

#[test]
fn every_fuzzer_finding_now_ends_in_a_value_or_an_error() {
    let root = repo().join("tests/fuzz-regressions");
    let mut replayed = 0;
    for target in std::fs::read_dir(&root).unwrap().flatten() {
        let name = target.file_name().to_string_lossy().into_owned();
        let run = entry_point(&name);
        for case in std::fs::read_dir(target.path()).unwrap().flatten() {
            let bytes = std::fs::read(case.path()).unwrap();
            let started = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| run(&bytes)));
            assert!(outcome.is_ok(), "{name}: {} panics", case.path().display());
            assert!(
                started.elapsed() < Duration::from_secs(1),
                "{name}: {} took {:?}",
                case.path().display(),
                started.elapsed()
            );
            replayed += 1;
        }
    }
    assert!(replayed > 0, "the findings under {}", root.display());
}

/// mesh_build's finding `crash-5e54178…`: polygons whose finite corners project onto their plane past
/// what the triangulators can order, one to −∞ and one to about 1.8·10²⁹. lyon, given the first, broke
/// its own ordering invariant (a debug assertion; with its assertions off it drew three triangles of
/// it), and the second was triangulated too. Now neither gets any: the file's meshes hold 71
/// triangles, where they held 76.
#[test]
fn a_polygon_projecting_past_f32_s_range_gets_no_triangles() {
    let path = repo().join("tests/fuzz-regressions/mesh_build/crash-5e54178179107628d54e3b3a57ad3bb7d3a05851");
    let bytes = std::fs::read(&path).unwrap();
    let document = formats::parse_document(&bytes).expect("the mutated hierarchy_smoothed.lwo still parses");
    let meshes = mesh::StandaloneMeshes::build(&document.model, mesh::lwo::BuildOptions::default());
    assert_eq!(meshes.rendered_triangles(), 71);
}

/// mesh_build's finding `timeout-cca7f472…`: a damaged `earth_planar_x.lwo` whose POLS lost a count, so that
/// one polygon runs on over 217 corners (the next records' counts read as point numbers), one of them
/// 1.17·10⁷ from the others. lyon's f32 sweep kept finding crossings of the pieces it had just cut: it
/// made 1.46 million vertices in 4.5 s and 390 MB before returning, and the polygon got no triangles
/// (too many of those vertices unplaced). lyon is now stopped once it has made more vertices than the
/// outline's corners and crossings can be (`VertexBudget`): the same meshes, in a tenth of a second.
#[test]
fn an_outline_lyon_would_cut_without_end_is_given_up_at_its_vertex_budget() {
    let path = repo().join("tests/fuzz-regressions/mesh_build/timeout-cca7f472bacf701b2f384176270883b4774474c1");
    let bytes = std::fs::read(&path).unwrap();
    let document = formats::parse_document(&bytes).expect("the damaged earth_planar_x.lwo still parses");
    let started = Instant::now();
    let meshes = mesh::StandaloneMeshes::build(&document.model, mesh::lwo::BuildOptions::default());
    assert_eq!(meshes.rendered_triangles(), 411);
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
}
