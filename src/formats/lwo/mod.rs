//! LightWave objects: LWOB and LWLO (LightWave 5), LWO2 (6 and later), LWO3 (2018 and later), and modo's
//! LXOB where its chunks agree with LWO2. Bytes → [`LwoObject`]; no engine types.

pub mod chunks;
mod clip;
pub(crate) mod fields;
mod geometry;
pub mod model;
pub mod nodes;
pub mod shading;
mod surface;

pub use chunks::{IffDialect, read_iff_tree};
pub use model::*;
pub use nodes::NodeGraph;
pub use shading::{SurfaceShading, shading};

use crate::formats::chunk::{ChunkRef, ChunkTree};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning};

/// Walks the chunk tree and reads the object.
pub fn parse(bytes: &[u8]) -> Result<(ChunkTree, LwoObject)> {
    let tree = read_iff_tree(bytes)?;
    let object = parse_tree(bytes, &tree)?;
    Ok((tree, object))
}

/// Reads the object from an already walked tree.
pub fn parse_tree(bytes: &[u8], tree: &ChunkTree) -> Result<LwoObject> {
    // One core gains nothing from a second thread.
    let choose = |form| if crate::parallel::cores() < 2 { None } else { geometry::PolygonsReadAhead::candidate(form) };
    parse_tree_reading_ahead(bytes, tree, choose)
}

/// [`parse_tree`], with `choose` naming the POLS chunk (LWO2, LWO3) to read on a helper thread, and
/// the point count to read it against.
fn parse_tree_reading_ahead<'t>(
    bytes: &[u8],
    tree: &'t ChunkTree,
    choose: impl FnOnce(ChunkRef<'t>) -> Option<(ChunkRef<'t>, u32)>,
) -> Result<LwoObject> {
    let form = tree.root_chunks().next().ok_or_else(|| ParseError::invalid(0, "empty file"))?;
    let form_type = form.form_type.unwrap_or(form.id);
    let kind = LwoKind::from_form_type(form_type).ok_or_else(|| {
        ParseError::new(
            8,
            ErrorKind::BadMagic { expected: "LWOB, LWLO, LWO2, LWO3 or LXOB", found: form_type.to_string() },
        )
        .within("FORM")
    })?;
    let mut builder = geometry::ObjectBuilder::new(kind);
    builder.warnings.extend(tree.warnings.iter().cloned());
    let dialect = IffDialect::of(form_type);
    let mut surface_nodes: Vec<ChunkRef<'_>> = Vec::new();
    let mut clip_nodes: Vec<ChunkRef<'_>> = Vec::new();
    let mut envelope_nodes: Vec<ChunkRef<'_>> = Vec::new();
    // A large POLS is read on a helper thread while the points and maps before it are read here; the
    // builder checks that it was read against the right point count, or reads it again itself.
    let ahead = if kind.is_lightwave5() { None } else { choose(form) };
    std::thread::scope(|scope| -> Result<()> {
        // A thread the system will not make leaves the chunk to be read in turn.
        let mut helper = ahead.and_then(|(node, point_count)| {
            let thread = std::thread::Builder::new()
                .spawn_scoped(scope, move || geometry::PolygonsReadAhead::read(bytes, node, point_count));
            Some((node.chunk, thread.ok()?))
        });
        for node in form.children() {
            if helper.as_ref().is_some_and(|(chunk, _)| *chunk == node.chunk) {
                // A helper that panicked leaves the chunk to be read here.
                builder.read_ahead = helper.take().and_then(|(_, thread)| thread.join().ok());
            }
            builder.read_chunk(bytes, node)?;
            match &node.kind().0 {
                b"SURF" => surface_nodes.push(node),
                b"CLIP" => clip_nodes.push(node),
                b"ENVL" => envelope_nodes.push(node),
                _ => {}
            }
        }
        Ok(())
    })?;
    let surfaces = surface_nodes
        .into_iter()
        .map(|node| surface::parse_surface(bytes, node, dialect, &mut builder.warnings))
        .collect();
    let clips =
        clip_nodes.into_iter().map(|node| clip::parse_clip(bytes, node, dialect, &mut builder.warnings)).collect();
    let envelopes = envelope_nodes
        .into_iter()
        .map(|node| clip::parse_envelope(bytes, node, dialect, &mut builder.warnings))
        .collect();
    Ok(builder.finish(surfaces, clips, envelopes))
}

/// Lenient reading of an optional chunk: an error becomes one warning naming the chunk `at`, and what
/// was read before it stays (the rest keeps the spec's defaults).
pub(crate) fn read_leniently(warnings: &mut Vec<Warning>, at: ChunkRef<'_>, result: Result<()>) {
    if let Err(error) = result {
        let message = format!("{}; read as far as it goes, the rest take the spec's defaults", error.kind);
        warnings.push(Warning::new(at.path(), error.offset, message));
    }
}

pub(crate) fn warn(warnings: &mut Vec<Warning>, at: ChunkRef<'_>, offset: usize, message: impl Into<String>) {
    warnings.push(Warning::new(at.path(), offset, message));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::{chunk, f32s, form, large_object, s0, vx};

    /// The object (or error) read in turn, read ahead (its `nth` POLS) against its layer's point count,
    /// and read ahead against one point fewer (which the builder must refuse and read again; for a
    /// layer without points, the same count); and how many of the two POLS read-aheads the builder took.
    fn three_ways(bytes: &[u8], nth: usize) -> ([String; 3], usize) {
        let tree = read_iff_tree(bytes).expect("a chunk tree");
        fn pols(form: ChunkRef<'_>, nth: usize) -> Option<ChunkRef<'_>> {
            form.children().filter(|n| n.id.0 == *b"POLS").nth(nth)
        }
        // The points of the chosen POLS's layer, as the builder has them there: those of the last PNTS
        // before it since the last LAYR.
        let points = |form: ChunkRef<'_>| {
            let chosen = pols(form, nth).map(|node| node.chunk);
            form.children().take_while(|n| Some(n.chunk) != chosen).fold(0, |count, n| match &n.id.0 {
                b"LAYR" => 0,
                b"PNTS" => (n.length / 12) as u32,
                _ => count,
            })
        };
        let taken_before = geometry::READ_AHEADS_TAKEN.with(|taken| taken.get());
        let reads = [
            parse_tree_reading_ahead(bytes, &tree, |_| None),
            parse_tree_reading_ahead(bytes, &tree, |form| pols(form, nth).map(|node| (node, points(form)))),
            parse_tree_reading_ahead(bytes, &tree, |form| {
                pols(form, nth).map(|node| (node, points(form).saturating_sub(1)))
            }),
        ]
        .map(|read| format!("{read:?}"));
        (reads, geometry::READ_AHEADS_TAKEN.with(|taken| taken.get()) - taken_before)
    }

    /// That the three reads of [`three_ways`] are one, and that the one in turn is `in_turn_is`:
    /// "Ok" or "Err" for how it starts, else a text it holds (a warning's).
    fn assert_read_alike(name: &str, [in_turn, ahead, wrong_count]: &[String; 3], in_turn_is: &str) {
        let as_expected = match in_turn_is {
            "Ok" | "Err" => in_turn.starts_with(in_turn_is),
            text => in_turn.contains(text),
        };
        assert!(as_expected, "{name}: {in_turn}");
        assert_eq!(ahead, in_turn, "{name}");
        assert_eq!(wrong_count, in_turn, "{name}");
    }

    fn object(pols: &[u8]) -> Vec<u8> {
        let mut body = chunk(b"TAGS", &s0("Default"));
        body.extend(chunk(b"LAYR", &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        body.extend(chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])));
        body.extend(chunk(b"POLS", pols));
        body.extend(chunk(b"PTAG", &[b"SURF".as_slice(), &vx(0), &[0, 0], &vx(1), &[0, 0]].concat()));
        form(b"LWO2", &body)
    }

    #[test]
    fn a_pols_read_ahead_gives_the_object_read_in_turn() {
        let quad = [&[0, 4][..], &vx(0), &vx(1), &vx(2), &vx(3)].concat();
        let past_the_points = [&[0, 3][..], &vx(0), &vx(1), &vx(9)].concat();
        let triangle = [&[0, 3][..], &vx(2), &vx(3), &vx(0)].concat();
        let kept = object(&[b"FACE".as_slice(), &quad, &past_the_points, &triangle].concat());
        let cut_short = object(&[b"FACE".as_slice(), &quad, &triangle[..5]].concat());
        let terrain = large_object(120, 90);
        for (name, bytes) in [("dropped record", kept), ("cut short", cut_short), ("terrain", terrain)] {
            let (reads, taken) = three_ways(&bytes, 0);
            let in_turn_is = match name {
                "dropped record" => "1 polygons refer to points past the end of PNTS",
                "cut short" => "Err",
                _ => "Ok",
            };
            assert_read_alike(name, &reads, in_turn_is);
            // Taken against the right count only (one point fewer would drop the quad above).
            assert_eq!(taken, 1, "{name}");
        }
    }

    /// An object of the four points of [`object`], the records `pols` (after their kind) and the PTAG
    /// chunks `ptags` (each its kind, then its entries), with 301 tags.
    fn object_with_tags(pols: &[u8], ptags: &[Vec<u8>]) -> Vec<u8> {
        let names: Vec<u8> = (0..301).flat_map(|k| s0(&format!("S{k}"))).collect();
        let mut body = chunk(b"TAGS", &names);
        body.extend(chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0])));
        body.extend(chunk(b"POLS", &[b"FACE".as_slice(), pols].concat()));
        ptags.iter().for_each(|ptag| body.extend(chunk(b"PTAG", ptag)));
        form(b"LWO2", &body)
    }

    #[test]
    fn surface_tags_after_a_pols_read_ahead_give_the_object_read_in_turn() {
        let quad = [&[0, 4][..], &vx(0), &vx(1), &vx(2), &vx(3)].concat();
        let triangle = [&[0, 3][..], &vx(2), &vx(3), &vx(0)].concat();
        let pols = [quad.clone(), triangle, quad].concat();
        let ptag = |kind: &[u8; 4], entries: &[(u32, u16)]| {
            let entries = entries.iter().flat_map(|&(polygon, tag)| [vx(polygon), tag.to_be_bytes().to_vec()].concat());
            [kind.to_vec(), entries.collect()].concat()
        };
        let long_index = [b"SURF".to_vec(), vec![0xFF, 0, 0, 2], 7u16.to_be_bytes().to_vec()].concat();
        let cut_short = [ptag(b"SURF", &[(0, 1), (1, 2)]), vec![0, 2, 0]].concat();
        // Each: the PTAG chunks.
        let cases: [(&str, Vec<Vec<u8>>); 8] = [
            ("in order", vec![ptag(b"SURF", &[(0, 1), (1, 0), (2, 1)])]),
            ("out of order, named twice, one not named", vec![ptag(b"SURF", &[(2, 1), (0, 3), (2, 2)])]),
            ("a tag past a byte", vec![ptag(b"SURF", &[(0, 1), (1, 300)])]),
            ("an index written long", vec![long_index]),
            ("parts first", vec![ptag(b"PART", &[(0, 1)]), ptag(b"SURF", &[(1, 2)])]),
            ("a second SURF", vec![ptag(b"SURF", &[(0, 1)]), ptag(b"SURF", &[(0, 2), (1, 3)])]),
            ("a polygon past the POLS", vec![ptag(b"SURF", &[(0, 1), (3, 2)])]),
            ("cut short", vec![cut_short]),
        ];
        for (name, ptags) in cases {
            let (reads, _) = three_ways(&object_with_tags(&pols, &ptags), 0);
            let in_turn_is = match name {
                "a polygon past the POLS" => "1 PTAG entries name polygons past the end of POLS",
                "cut short" => "Err",
                _ => "Ok",
            };
            assert_read_alike(name, &reads, in_turn_is);
        }
        // The tags in turn are the ones the file gives.
        let ([in_turn, ..], ..) = three_ways(&object_with_tags(&pols, &[ptag(b"SURF", &[(2, 1), (0, 3), (2, 2)])]), 0);
        assert!(in_turn.contains("S3") && in_turn.contains("S2"), "{in_turn}");
    }

    /// `bytes` with the chunk `inserted` before its first PTAG, the FORM's size made right.
    fn inserted_before_the_ptag(mut bytes: Vec<u8>, inserted: Vec<u8>) -> Vec<u8> {
        let at = bytes.windows(4).position(|w| w == b"PTAG").expect("a PTAG");
        bytes.splice(at..at, inserted);
        crate::fixtures::lwo::form_size_fixed(bytes)
    }

    #[test]
    fn a_second_pols_in_a_layer_is_not_taken_from_a_read_ahead() {
        let quad = [&[0, 4][..], &vx(0), &vx(1), &vx(2), &vx(3)].concat();
        let tags = [b"SURF".as_slice(), &vx(0), &5u16.to_be_bytes(), &vx(1), &6u16.to_be_bytes()].concat();
        let layer = crate::fixtures::lwo::second_layer;
        // Each: the chunk put before the PTAG, the PTAG's body, the POLS read ahead, what the object
        // read in turn is, and how many POLS read-aheads are taken.
        let cases = [
            // Its polygons follow the first POLS's: columns read on their own would number them from
            // 0, and so would its tags.
            ("a second POLS", chunk(b"POLS", &[b"FACE".as_slice(), &quad, &quad].concat()), tags.clone(), 1, "Ok", 0),
            // A PTAG after a LAYR names the new layer's polygons, not the POLS's before it.
            ("a LAYR between", layer(), tags, 0, "2 PTAG entries name polygons past the end of POLS", 1),
            ("a LAYR before tags without entries", layer(), b"SURF".to_vec(), 0, "Ok", 1),
        ];
        for (name, inserted, tags, nth, in_turn_is, taken) in cases {
            let bytes = inserted_before_the_ptag(object_with_tags(&quad, &[tags]), inserted);
            let (reads, pols_taken) = three_ways(&bytes, nth);
            assert_read_alike(name, &reads, in_turn_is);
            assert_eq!(pols_taken, taken, "{name}");
        }
    }

    #[test]
    fn damaged_real_objects_read_alike_with_and_without_read_aheads() {
        // The read-aheads serve only POLS chunks from 1 MB, which no damaged copy of a real file that
        // a test can afford reaches: each copy is read with a POLS chosen for reading ahead whatever
        // its size (its first, or one time in four its second, which the builder refuses where it is
        // its layer's second). The
        // assimp corpus's LightWave 6+ objects (LightWave 5's are never read ahead:
        // `lightwave_5_objects_are_never_read_ahead`), and a small generated terrain (notched cells,
        // two PTAGs, a seam's VMAD).
        let corpus = crate::fixtures::lwo::lightwave_files_under(&["/usr/share/assimp/models/LWO".into()]);
        let mut objects: Vec<(String, Vec<u8>)> = corpus
            .into_iter()
            .filter(|(_, bytes)| bytes.get(8..12).is_some_and(|kind| kind == b"LWO2" || kind == b"LXOB"))
            .collect();
        objects.push(("terrain".into(), large_object(24, 18)));
        assert!(objects.len() > 30, "{} objects", objects.len());
        let mut next = crate::fixtures::xorshift64(0x5EED_0FDA_3A6E);
        let (mut compared, mut taken) = (0, 0);
        for (name, bytes) in &objects {
            for case in 0..100 {
                let copy = crate::fixtures::lwo::damaged_copy(bytes, &mut next);
                if read_iff_tree(&copy).is_err() {
                    continue;
                }
                let (reads, pols_taken) = three_ways(&copy, usize::from(next().is_multiple_of(4)));
                assert_read_alike(&format!("{name}, damaged copy {case}"), &reads, "");
                compared += 1;
                taken += pols_taken;
            }
        }
        // Most copies still hold a FORM to read, and their read-aheads are taken as well as refused.
        assert!(
            compared > 50 * objects.len() && 2 * taken > compared,
            "{compared} copies compared, {taken} read-aheads taken"
        );
    }

    #[test]
    fn lightwave_5_objects_are_never_read_ahead() {
        let bytes = crate::fixtures::lwo::seed_square_with_detail();
        let tree = read_iff_tree(&bytes).expect("a chunk tree");
        let object = parse_tree_reading_ahead(&bytes, &tree, |_| panic!("an LWOB's POLS chosen to read ahead"));
        assert!(object.is_ok());
    }

    #[test]
    fn the_largest_pols_is_read_ahead_against_its_layers_points() {
        // 400 × 400 points need long indices: the POLS is 2.9 MB.
        let bytes = large_object(400, 400);
        let tree = read_iff_tree(&bytes).expect("a chunk tree");
        let form = tree.root_chunks().next().expect("a FORM");
        let (node, point_count) = geometry::PolygonsReadAhead::candidate(form).expect("a POLS worth reading ahead");
        assert_eq!(node.id.0, *b"POLS");
        let object = parse_tree(&bytes, &tree).expect("the object");
        assert_eq!(point_count as usize, object.layers[0].points.len());
        // A small object reads its POLS in turn.
        let small = read_iff_tree(&crate::fixtures::lwo::seed_square_with_detail()).expect("a chunk tree");
        assert!(geometry::PolygonsReadAhead::candidate(small.root_chunks().next().expect("a FORM")).is_none());
    }
}
