//! The chunk layer's tests: walks, paths and the serialised tree, read from small files made here.

use super::*;
use crate::fixtures::lwo::{chunk, form};
use crate::formats::error::ErrorKind;

#[test]
fn odd_lengths_skip_the_pad_byte() {
    let mut body = chunk(b"DESC", b"abc");
    body.extend(chunk(b"TEXT", b"xy"));
    let tree = read_iff_tree(&form(b"LWO2", &body)).unwrap();
    let kids: Vec<&ChunkNode> = tree.children(tree.roots()[0]).map(|id| tree.node(id)).collect();
    assert_eq!(kids.len(), 2);
    assert_eq!((kids[0].offset, kids[0].length), (12, 3));
    assert_eq!((kids[1].id, kids[1].offset), (FourCc::new(b"TEXT"), 24));
}

#[test]
fn a_chunks_path_is_its_place_in_the_listing_of_every_path() {
    // Many siblings of a few ids, in an order that interleaves them, asked in reverse: each path is
    // numbered among the earlier siblings of its id, as the full listing numbers it.
    let mut body = Vec::new();
    for i in 0..20_000u32 {
        let id: &[u8; 4] = [b"PNTS", b"POLS", b"PTAG"][(i % 3) as usize];
        body.extend(chunk(id, &i.to_be_bytes()));
    }
    let tree = read_iff_tree(&form(b"LWO2", &body)).unwrap();
    let listed = tree.paths();
    assert_eq!(listed.len(), 20_001);
    for (path, id) in listed.iter().rev() {
        assert_eq!(&tree.path(*id), path);
    }
    assert_eq!(listed[5].0, "FORM/POLS[1]");
}

#[test]
fn oversized_chunk_names_path_and_offset() {
    let mut body = chunk(b"PNTS", &[0; 12]);
    body.extend_from_slice(b"POLS\x00\x00\x10\x00");
    let err = read_iff_tree(&form(b"LWO2", &body)).unwrap_err();
    assert_eq!(err.path, "FORM/POLS");
    assert_eq!(err.offset, 12 + 20 + 4);
    assert!(matches!(err.kind, ErrorKind::LengthPastParent { length: 0x1000, .. }));
}

#[test]
fn lwo2_surf_sub_chunks_nest() {
    let mut surf = b"Skin\0\0\0\0".to_vec();
    surf.extend_from_slice(b"COLR\x00\x0E");
    surf.extend_from_slice(&[0; 14]);
    let mut imap = b"\x80\0".to_vec();
    imap.extend_from_slice(b"CHAN\x00\x04COLR");
    let mut blok = b"IMAP".to_vec();
    blok.extend_from_slice(&(imap.len() as u16).to_be_bytes());
    blok.extend_from_slice(&imap);
    blok.extend_from_slice(b"TMAP\x00\x06SIZE\x00\x00");
    surf.extend_from_slice(b"BLOK");
    surf.extend_from_slice(&(blok.len() as u16).to_be_bytes());
    surf.extend_from_slice(&blok);
    let tree = read_iff_tree(&form(b"LWO2", &chunk(b"SURF", &surf))).unwrap();
    let child = |id: ChunkId, n: usize| tree.children(id).nth(n).expect("the child");
    let surf = child(tree.roots()[0], 0);
    assert_eq!(tree.node(surf).prefix_len, 8);
    let ids: Vec<String> = tree.children(surf).map(|c| tree.node(c).id.to_string()).collect();
    assert_eq!(ids, ["COLR", "BLOK"]);
    let blok = child(surf, 1);
    assert_eq!(tree.node(child(blok, 0)).id, FourCc::new(b"IMAP"));
    assert_eq!(tree.node(child(child(blok, 0), 0)).id, FourCc::new(b"CHAN"));
    assert_eq!(tree.node(child(child(blok, 1), 0)).id, FourCc::new(b"SIZE"));
}

/// LWO2 with two surfaces holding a sub-chunk each: repeated ids are numbered in paths.
fn two_surfaces_file() -> Vec<u8> {
    let mut body = chunk(b"PNTS", &[0; 12]);
    body.extend(chunk(b"SURF", b"A\0B\0COLR\x00\x02ab"));
    body.extend(chunk(b"SURF", b"C\0D\0COLR\x00\x02ab"));
    form(b"LWO2", &body)
}

fn two_surfaces() -> ChunkTree {
    read_iff_tree(&two_surfaces_file()).unwrap()
}

#[test]
fn ids_paths_and_parents_agree() {
    let tree = two_surfaces();
    let paths = tree.paths();
    let names: Vec<&str> = paths.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["FORM", "FORM/PNTS", "FORM/SURF", "FORM/SURF/COLR", "FORM/SURF[1]", "FORM/SURF[1]/COLR"]);
    // The arena is the depth-first walk.
    assert_eq!(tree.ids().collect::<Vec<_>>(), paths.iter().map(|&(_, id)| id).collect::<Vec<_>>());
    for (path, id) in &paths {
        assert_eq!(tree.path(*id), *path);
        assert_eq!(tree.find_path(path), Some(*id));
    }
    let (second_surf, colr) = (paths[4].1, paths[5].1);
    assert_eq!(tree.parent(colr), Some(second_surf));
    assert_eq!(tree.children(second_surf).collect::<Vec<_>>(), [colr]);
    assert_eq!(tree.parent(tree.roots()[0]), None);
    assert_eq!(tree.deepest_at(tree.node(colr).data_offset() + 1), Some(colr));
    assert_eq!(tree.deepest_at(tree.node(second_surf).data_offset()), Some(second_surf), "the names before COLR");
    assert_eq!(tree.deepest_at(10_000), None);
}

#[test]
fn the_serialised_tree_nests_children_and_leaves_out_what_is_empty() {
    let file = two_surfaces_file();
    let tree = read_iff_tree(&file).unwrap();
    let fields =
        |id| super::super::chunk_fields(&tree, id, &file).into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let json = serde_json::to_value(tree.nested(&file, fields)).unwrap();
    let surf = &json[0]["children"][2];
    assert_eq!(json[0]["type"], "LWO2");
    assert_eq!((&surf["id"], &surf["offset"], &surf["length"]), (&"SURF".into(), &52.into(), &12.into()));
    assert_eq!(surf["children"][0], serde_json::json!({ "id": "COLR", "offset": 64, "length": 2 }));
}

#[test]
fn a_broken_walk_keeps_the_chunk_where_it_broke_under_its_parent() {
    let mut body = chunk(b"PNTS", &[0; 12]);
    body.extend(chunk(b"SURF", b"A\0B\0COLR\x00\x09ab"));
    let (tree, error) = crate::formats::lwo::chunks::read_iff_tree_partial(&form(b"LWO2", &body));
    assert!(error.is_none(), "a surface is optional: kept with a warning");
    let colr = tree.find_path("FORM/SURF/COLR").expect("the clipped COLR");
    assert_eq!(tree.node(colr).length, 2, "cut to the bytes there are");
    assert_eq!(tree.path(tree.parent(colr).unwrap()), "FORM/SURF");
}

#[test]
fn not_an_iff_file() {
    let err = read_iff_tree(b"RIFF\0\0\0\0WAVE").unwrap_err();
    assert!(matches!(err.kind, ErrorKind::BadMagic { .. }));
}

#[test]
fn every_prefix_of_a_file_is_an_error_not_a_panic() {
    let mut body = chunk(b"PNTS", &[0; 24]);
    body.extend(chunk(b"SURF", b"A\0\0\0COLR\x00\x02ab"));
    let file = form(b"LWO2", &body);
    for n in 0..file.len() {
        assert!(read_iff_tree(&file[..n]).is_err(), "prefix {n}");
    }
    assert!(read_iff_tree(&file).is_ok());
}
