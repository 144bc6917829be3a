//! The chunk layer on the seed's LWOB example and the WMO fixture: offsets, lengths, nesting, and
//! errors that name a chunk and an offset instead of panicking.

use lwo_wmo_viewer::fixtures;
use lwo_wmo_viewer::formats::chunk::{read_iff_tree, read_wmo_tree};
use lwo_wmo_viewer::formats::lwo::{self, NONE, PolygonKind};
use lwo_wmo_viewer::formats::{ErrorKind, FourCc, parse_document};

#[test]
fn seed_lwob_tree_has_the_seed_offsets() {
    let file = fixtures::lwo::seed_square_with_detail();
    assert_eq!(file.len(), 420);
    let tree = read_iff_tree(&file).unwrap();
    let form = tree.chunk(tree.roots()[0]);
    assert_eq!((form.id, form.form_type, form.length), (FourCc::new(b"FORM"), Some(FourCc::new(b"LWOB")), 412));
    let chunks: Vec<(String, usize, usize)> = form.children().map(|c| (c.id.to_string(), c.offset, c.length)).collect();
    assert_eq!(
        chunks,
        [
            ("PNTS".to_owned(), 12, 84),
            ("SRFS".to_owned(), 104, 18),
            ("POLS".to_owned(), 130, 24),
            ("SURF".to_owned(), 162, 174),
            ("SURF".to_owned(), 344, 68),
        ]
    );
    // LWOB SURF bodies are sub-chunks with U2 lengths after the name.
    let first_surf = form.children().nth(3).unwrap();
    let colr = first_surf.first_child().unwrap();
    assert_eq!(colr.id, FourCc::new(b"COLR"));
    assert_eq!(colr.offset, 162 + 8 + 8);
}

#[test]
fn seed_lwob_polygon_and_detail() {
    let file = fixtures::lwo::seed_square_with_detail();
    let (_, object) = lwo::parse(&file).unwrap();
    assert_eq!(object.kind, lwo::LwoKind::Lwob);
    assert_eq!(object.layers.len(), 1);
    let layer = &object.layers[0];
    assert_eq!(layer.points.len(), 7);
    assert_eq!(layer.points[0], [1.0, 1.0, 0.0]);
    assert_eq!(layer.points[6], [-0.5, -0.5, 0.0]);
    let polys = &layer.polygons;
    assert_eq!(polys.len(), 2);
    assert_eq!(polys.vertices(0), [1, 0, 2, 3]);
    assert_eq!(polys.kind()[0], PolygonKind::Face);
    assert_eq!(object.surfaces[polys.surface().get(0) as usize].name, "Square");
    assert_eq!(polys.detail_of()[0], NONE);
    assert_eq!(polys.vertices(1), [5, 4, 6]);
    assert_eq!(object.surfaces[polys.surface().get(1) as usize].name, "Triangle");
    assert_eq!(polys.detail_of()[1], 0);
    let square = &object.surfaces[0];
    assert_eq!(square.name, "Square");
    assert!((square.diffuse - 0.9).abs() < 1e-6, "VDIF wins over DIFF");
    assert_eq!(object.surfaces.len(), 2);
}

#[test]
fn wmo_trees_show_readable_ids_and_mogp_children() {
    let scene = fixtures::wmo::sample_scene();
    let files = scene.files("courtyard");
    let root = read_wmo_tree(&files[0].1).unwrap();
    let ids: Vec<String> = root.root_chunks().map(|n| n.id.to_string()).collect();
    assert_eq!(&ids[..4], ["MVER", "MOHD", "MOTX", "MOMT"]);
    assert!(ids.iter().all(|id| !id.starts_with("REV") && id != "DHOM"));
    let group = read_wmo_tree(&files[2].1).unwrap();
    assert_eq!(group.roots().len(), 2);
    let mogp = group.chunk(group.roots()[1]);
    assert_eq!(mogp.id, FourCc::new(b"MOGP"));
    assert_eq!(mogp.prefix_len, 68);
    let kids: Vec<String> = mogp.children().map(|n| n.id.to_string()).collect();
    assert_eq!(&kids[..6], ["MOPY", "MOVI", "MOVT", "MONR", "MOTV", "MOBA"]);
    assert!(kids.contains(&"MLIQ".to_owned()) && kids.contains(&"MOCV".to_owned()));
    // The first sub-chunk starts right after MVER (12 bytes), the MOGP header (8) and its 68 bytes.
    assert_eq!(mogp.first_child().unwrap().offset, 12 + 8 + 68);
}

/// Every prefix is an error with an offset inside the prefix, except a WMO root cut exactly between two
/// chunks: nothing in the format gives its total length, so that parses, with warnings that say so.
#[test]
fn truncated_files_fail_with_an_offset_and_never_panic() {
    let mut inputs = vec![fixtures::lwo::seed_square_with_detail()];
    inputs.extend(fixtures::wmo::sample_scene().files("t").into_iter().map(|(_, b)| b));
    for (n, file) in inputs.iter().enumerate() {
        let is_wmo_root = n == 1;
        for cut in 0..file.len() {
            match parse_document(&file[..cut]) {
                Err(err) => {
                    assert!(err.offset <= cut, "offset {} past the cut {cut}", err.offset);
                    assert!(!err.to_string().is_empty());
                }
                Ok(doc) => {
                    assert!(is_wmo_root, "file {n} cut at {cut} parsed");
                    assert!(!doc.warnings().is_empty(), "root cut at {cut} parsed without a warning");
                }
            }
        }
    }
}

#[test]
fn garbage_fails_cleanly() {
    let mut state = 0x1234_5678u32;
    for len in [0usize, 1, 3, 4, 8, 12, 64, 1000] {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state as u8
            })
            .collect();
        assert!(parse_document(&bytes).is_err());
        let mut iff = b"FORM".to_vec();
        iff.extend_from_slice(&(len as u32 + 4).to_be_bytes());
        iff.extend_from_slice(b"LWO2");
        iff.extend_from_slice(&bytes);
        let _ = parse_document(&iff);
        let mut wmo = b"REVM\x04\x00\x00\x00\x11\x00\x00\x00".to_vec();
        wmo.extend_from_slice(&bytes);
        let _ = parse_document(&wmo);
    }
}

#[test]
fn a_length_past_the_parent_names_the_chunk_path() {
    let mut file = fixtures::lwo::seed_square_with_detail();
    // POLS length (at 134) made larger than what is left of the FORM.
    file[134..138].copy_from_slice(&10_000u32.to_be_bytes());
    let err = parse_document(&file).unwrap_err();
    assert_eq!(err.path, "FORM/POLS");
    assert_eq!(err.offset, 134);
    assert!(matches!(err.kind, ErrorKind::LengthPastParent { length: 10_000, .. }));
}

#[test]
fn unsupported_wmo_version_is_named() {
    let mut file = fixtures::wmo::sample_scene().files("v").remove(0).1;
    file[8..12].copy_from_slice(&14u32.to_le_bytes());
    let err = parse_document(&file).unwrap_err();
    assert!(err.to_string().contains("WMO version 14 is not supported"), "{err}");
}

#[test]
fn a_rejected_file_keeps_its_chunks_up_to_the_break_with_the_error_there() {
    use lwo_wmo_viewer::formats::{parse_chunk_tree, parse_document};
    // WMO: MVER whole, MOHD claiming 64 bytes where 2 are left.
    let wmo = b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\x40\x00\x00\x00\x01\x02";
    assert!(parse_document(wmo).is_err());
    let (tree, error) = parse_chunk_tree(wmo);
    let error = error.expect("the walk breaks at MOHD");
    assert_eq!(tree.root_chunks().map(|n| n.id.to_string()).collect::<Vec<_>>(), ["MVER", "MOHD"]);
    assert!(error.path.contains("MOHD") && error.offset == 16, "{error}");
    // LightWave: PNTS whole, then a POLS whose length runs past the FORM; the FORM keeps PNTS and POLS.
    let mut body = lwo_wmo_viewer::fixtures::lwo::chunk(b"PNTS", &[0; 12]);
    body.extend_from_slice(b"POLS\x00\x00\x10\x00");
    let lwo = lwo_wmo_viewer::fixtures::lwo::form(b"LWO2", &body);
    let (tree, error) = parse_chunk_tree(&lwo);
    let error = error.expect("the walk breaks at POLS");
    let kids: Vec<String> = tree.chunk(tree.roots()[0]).children().map(|n| n.id.to_string()).collect();
    assert_eq!(kids, ["PNTS", "POLS"]);
    assert!(error.path.ends_with("POLS"), "{error}");
    // A whole file walks with no error.
    assert!(
        parse_chunk_tree(&lwo_wmo_viewer::fixtures::lwo::form(
            b"LWO2",
            &lwo_wmo_viewer::fixtures::lwo::chunk(b"PNTS", &[0; 12])
        ))
        .1
        .is_none()
    );
}
