//! Each side's measured run: ours and the peer's (assimp and StormLib through their C APIs, loaded at
//! run time; the `wow-wmo` crate), each returning what it produced so both sides' work can be compared.

use std::ffi::{CStr, CString, c_char, c_uint, c_void};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::children::*;
use lwo_wmo_viewer::{formats, mesh};
use serde_json::Value;

/// One measured run: what it produced (triangles) and how long it took.
pub(crate) type Run = fn(&Path) -> Result<usize, String>;

pub(crate) fn ours_lwo(path: &Path) -> Result<usize, String> {
    let bytes = lwo_wmo_viewer::source::read_file(path).map_err(|e| e.to_string())?;
    let document = formats::parse_document(&bytes).map_err(|e| e.to_string())?;
    // The model owns its data: the file's bytes can go before the meshes are built, as in the loader.
    drop(bytes);
    Ok(mesh::StandaloneMeshes::build(&document.model, mesh::lwo::BuildOptions::default()).rendered_triangles())
}

/// Root and every group, parsed; with `build`, each group's meshes too (with the root), on as many
/// threads as the machine has, handed out by the loader's `parallel_map` (a fixed half each, as the
/// bench had, left one thread idle whenever the other core was busy).
pub(crate) fn ours_wmo(path: &Path, build: bool) -> Result<usize, String> {
    let bytes = lwo_wmo_viewer::source::read_file(path).map_err(|e| e.to_string())?;
    let (_, root) = formats::wmo::parse_root(&bytes).map_err(|e| e.to_string())?;
    let groups: Vec<PathBuf> = group_files(path, root.group_infos.len()).into_iter().collect::<Result<_, _>>()?;
    let one = |group_path: &PathBuf| -> Result<usize, String> {
        let group_bytes = lwo_wmo_viewer::source::read_file(group_path).map_err(|e| e.to_string())?;
        let (_, group) = formats::wmo::parse_group(&group_bytes).map_err(|e| e.to_string())?;
        Ok(if build { mesh::wmo::build_group(&group, Some(&root)).rendered_triangles } else { group.indices.len() / 3 })
    };
    if !build {
        return groups.iter().map(one).sum();
    }
    // The loader's own scheduling: on every core, each thread taking the next group when done with one.
    lwo_wmo_viewer::parallel::parallel_map(&groups, one).into_iter().sum()
}

/// The group files beside a root on disk, found as the loader finds them.
pub(crate) fn group_files(root: &Path, count: usize) -> Vec<Result<PathBuf, String>> {
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(root);
    let on_disk = |p: String| source.root().join(p);
    lwo_wmo_viewer::scene::find_group_files(&source, &relative, count)
        .into_iter()
        .map(|found| found.map(on_disk).map_err(|e| e.to_string()))
        .collect()
}

pub(crate) fn wow_wmo(path: &Path) -> Result<usize, String> {
    let parse = |p: &Path| -> Result<wow_wmo::api::ParsedWmo, String> {
        // Read as ours are, so that the ratio compares the parsers.
        let bytes = lwo_wmo_viewer::source::read_file(p).map_err(|e| e.to_string())?;
        wow_wmo::api::parse_wmo(&mut Cursor::new(&bytes)).map_err(|e| e.to_string())
    };
    let wow_wmo::api::ParsedWmo::Root(root) = parse(path)? else { return Err("not a root".into()) };
    let mut triangles = 0;
    for group_path in group_files(path, root.n_groups as usize) {
        if let wow_wmo::api::ParsedWmo::Group(group) = parse(&group_path?)? {
            triangles += group.vertex_indices.len() / 3;
        }
    }
    Ok(triangles)
}

#[repr(C)]
pub(crate) struct AiScene {
    flags: c_uint,
    root_node: *const c_void,
    mesh_count: c_uint,
    meshes: *const *const AiMesh,
}

#[repr(C)]
pub(crate) struct AiMesh {
    primitive_types: c_uint,
    vertex_count: c_uint,
    face_count: c_uint,
}

pub(crate) const AI_PROCESS_TRIANGULATE: c_uint = 0x8;
pub(crate) const AI_PROCESS_GEN_SMOOTH_NORMALS: c_uint = 0x40;
/// Texture coordinates from a material's projection (planar, cylindrical, spherical, box): without it
/// assimp gives a projection-mapped LightWave surface no UVs (`assimp export earth_planar_x.lwo x.obj`
/// writes no `vt` line; with `-guv`, 145), where our meshes carry them.
pub(crate) const AI_PROCESS_GEN_UV_COORDS: c_uint = 0x40000;

/// assimp's C API, loaded once per process: only `aiImportFile` and `aiReleaseImport` are timed, as
/// only our parse and build are on our side (looking the library up again on every run cost a few
/// microseconds of each small file's time).
pub(crate) struct Assimp {
    import: unsafe extern "C" fn(*const c_char, c_uint) -> *const AiScene,
    release: unsafe extern "C" fn(*const AiScene),
    error: unsafe extern "C" fn() -> *const c_char,
    _library: libloading::Library,
}

pub(crate) fn load_assimp() -> Result<Assimp, String> {
    // SAFETY: the symbols are assimp's C API, declared with the signatures of <assimp/cimport.h>; the
    // library is kept with the pointers, for the life of the process.
    unsafe {
        let library = libloading::Library::new("libassimp.so.5").map_err(|e| format!("assimp not found: {e}"))?;
        let import = *library
            .get::<unsafe extern "C" fn(*const c_char, c_uint) -> *const AiScene>(b"aiImportFile\0")
            .map_err(|e| e.to_string())?;
        let release =
            *library.get::<unsafe extern "C" fn(*const AiScene)>(b"aiReleaseImport\0").map_err(|e| e.to_string())?;
        let error = *library
            .get::<unsafe extern "C" fn() -> *const c_char>(b"aiGetErrorString\0")
            .map_err(|e| e.to_string())?;
        Ok(Assimp { import, release, error, _library: library })
    }
}

/// assimp's API, loaded on the first call (`child` makes that call before it times anything).
pub(crate) fn assimp_api() -> Result<&'static Assimp, String> {
    static ASSIMP: std::sync::OnceLock<Result<Assimp, String>> = std::sync::OnceLock::new();
    ASSIMP.get_or_init(load_assimp).as_ref().map_err(Clone::clone)
}

/// assimp's `aiImportFile` with triangulation and smooth normals, through `libassimp.so.5`.
pub(crate) fn assimp(path: &Path) -> Result<usize, String> {
    assimp_with(path, AI_PROCESS_TRIANGULATE | AI_PROCESS_GEN_SMOOTH_NORMALS)
}

/// [`assimp`] also making the UVs of projection-mapped surfaces, as ours does.
pub(crate) fn assimp_with_uvs(path: &Path) -> Result<usize, String> {
    assimp_with(path, AI_PROCESS_TRIANGULATE | AI_PROCESS_GEN_SMOOTH_NORMALS | AI_PROCESS_GEN_UV_COORDS)
}

pub(crate) fn assimp_with(path: &Path, steps: c_uint) -> Result<usize, String> {
    let api = assimp_api()?;
    let name = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: the functions are assimp's, from `load_assimp`; the scene is only read through the leading
    // fields of aiScene and aiMesh that assimp 5 lays out so, and released once.
    unsafe {
        let scene = (api.import)(name.as_ptr(), steps);
        if scene.is_null() {
            return Err(CStr::from_ptr((api.error)()).to_string_lossy().into_owned());
        }
        // A scene of no meshes may have no array at all: a slice is not made from a null pointer.
        let meshes: &[*const AiMesh] = match (*scene).meshes.is_null() {
            true => &[],
            false => std::slice::from_raw_parts((*scene).meshes, (*scene).mesh_count as usize),
        };
        let triangles = meshes.iter().map(|&m| (*m).face_count as usize).sum();
        (api.release)(scene);
        Ok(triangles)
    }
}

/// The names of a generated archive's files, one a line, beside it (both readers get the same list).
pub(crate) fn archive_names(path: &Path) -> Result<Vec<String>, String> {
    let names = std::fs::read_to_string(path.with_extension("names")).map_err(|e| e.to_string())?;
    Ok(names.lines().map(str::to_owned).collect())
}

/// Every file of the archive read and decompressed through our reader on `threads` threads; the
/// result is the number of bytes read.
pub(crate) fn ours_mpq(path: &Path, threads: usize) -> Result<usize, String> {
    let names = archive_names(path)?;
    let archive = formats::mpq::Archive::open(path).map_err(|e| e.to_string())?;
    let threads = threads.max(1);
    std::thread::scope(|scope| {
        // Every n-th name to each thread: the generator writes the files by compression method, so
        // contiguous halves would give one thread all the bzip2 files.
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let (archive, names) = (&archive, &names);
                scope.spawn(move || {
                    names.iter().skip(first).step_by(threads).try_fold(0usize, |total, name| {
                        archive.read(name).map(|b| total + b.len()).map_err(|e| e.to_string())
                    })
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().map_err(|_| "a reader thread panicked".to_string())?).sum()
    })
}

pub(crate) type Handle = *mut c_void;

/// The same through StormLib's C API (`SFileOpenArchive`, `SFileOpenFileEx`, `SFileGetFileSize`,
/// `SFileReadFile`, `SFileCloseFile`), one buffer per file as a caller that keeps the file would use.
pub(crate) fn stormlib(path: &Path) -> Result<usize, String> {
    const MPQ_OPEN_READ_ONLY: u32 = 0x100;
    let names = archive_names(path)?;
    // SAFETY: the symbols are StormLib's C API with the signatures of StormLib.h (on Linux TCHAR is
    // char, DWORD u32, HANDLE a pointer, the results C++ bool); every handle opened is closed.
    unsafe {
        let library = libloading::Library::new("libstorm.so.9").map_err(|e| format!("StormLib not found: {e}"))?;
        let open_archive: libloading::Symbol<unsafe extern "C" fn(*const c_char, u32, u32, *mut Handle) -> bool> =
            library.get(b"SFileOpenArchive\0").map_err(|e| e.to_string())?;
        let close_archive: libloading::Symbol<unsafe extern "C" fn(Handle) -> bool> =
            library.get(b"SFileCloseArchive\0").map_err(|e| e.to_string())?;
        let open_file: libloading::Symbol<unsafe extern "C" fn(Handle, *const c_char, u32, *mut Handle) -> bool> =
            library.get(b"SFileOpenFileEx\0").map_err(|e| e.to_string())?;
        let file_size: libloading::Symbol<unsafe extern "C" fn(Handle, *mut u32) -> u32> =
            library.get(b"SFileGetFileSize\0").map_err(|e| e.to_string())?;
        let read_file: libloading::Symbol<
            unsafe extern "C" fn(Handle, *mut c_void, u32, *mut u32, *mut c_void) -> bool,
        > = library.get(b"SFileReadFile\0").map_err(|e| e.to_string())?;
        let close_file: libloading::Symbol<unsafe extern "C" fn(Handle) -> bool> =
            library.get(b"SFileCloseFile\0").map_err(|e| e.to_string())?;
        let archive_name = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        let mut archive: Handle = std::ptr::null_mut();
        if !open_archive(archive_name.as_ptr(), 0, MPQ_OPEN_READ_ONLY, &mut archive) {
            return Err("SFileOpenArchive failed".into());
        }
        let mut total = 0;
        for name in &names {
            let c_name = CString::new(name.as_bytes()).map_err(|e| e.to_string())?;
            let mut file: Handle = std::ptr::null_mut();
            if !open_file(archive, c_name.as_ptr(), 0, &mut file) {
                close_archive(archive);
                return Err(format!("SFileOpenFileEx {name} failed"));
            }
            let size = file_size(file, std::ptr::null_mut());
            let mut buffer = vec![0u8; size as usize];
            let mut read = 0u32;
            let ok = read_file(file, buffer.as_mut_ptr().cast(), size, &mut read, std::ptr::null_mut());
            close_file(file);
            if !ok && read != size {
                close_archive(archive);
                return Err(format!("SFileReadFile {name} read {read} of {size} bytes"));
            }
            total += read as usize;
        }
        close_archive(archive);
        Ok(total)
    }
}

/// A client-sized archive: `files` files of 1–72 KB (36 KB on average), each three quarters
/// incompressible and one quarter text, so the archive stays large; a tenth each stored and PKWARE, a
/// fifth bzip2, the rest zlib, as smpq (StormLib's archiver) writes them. Deterministic; built once.
pub(crate) fn generated_archive(dir: &Path, files: usize) -> Result<PathBuf, String> {
    let archive = dir.join(format!("client-{files}.mpq"));
    if archive.exists() && archive.with_extension("names").exists() {
        return Ok(archive);
    }
    let staging = dir.join(format!("client-{files}-files"));
    let _ = std::fs::remove_dir_all(&staging);
    let mut next = lwo_wmo_viewer::fixtures::xorshift64(0x9E37_79B9_7F4A_7C15);
    let mut groups: [Vec<String>; 4] = Default::default();
    for index in 0..files {
        let name = format!("World/Generated/Zone{:02}/Doodad{:03}/File{index:05}.bin", index % 37, (index / 37) % 211);
        let size = 1024 + (next() % (71 * 1024)) as usize;
        let mut bytes = Vec::with_capacity(size);
        while bytes.len() < size {
            if next().is_multiple_of(4) {
                bytes.extend_from_slice(
                    format!("vertex {} {} {}\n", next() % 1000, next() % 1000, next() % 1000).as_bytes(),
                );
            } else {
                bytes.extend_from_slice(&next().to_le_bytes());
                bytes.extend_from_slice(&next().to_le_bytes());
            }
        }
        bytes.truncate(size);
        let path = staging.join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
        let group = match index % 10 {
            0 => 0,
            1 => 1,
            2 | 3 => 2,
            _ => 3,
        };
        groups[group].push(name);
    }
    let _ = std::fs::remove_file(&archive);
    let archive_text = archive.to_string_lossy().into_owned();
    for (group, compression) in ["none", "PKWARE", "BZIP2", "ZLIB"].iter().enumerate() {
        for (part, names) in groups[group].chunks(2000).enumerate() {
            // The version and the table size are set when the archive is created; smpq refuses them on -a.
            let create: &[&str] = if group == 0 && part == 0 { &["-c", "-M", "2", "-m", "32768"] } else { &["-a"] };
            let status = Command::new("smpq")
                .current_dir(&staging)
                .args(create)
                .args(["-q", "-C", compression, &archive_text])
                .args(names)
                .status()
                .map_err(|e| format!("smpq (apt-get install smpq): {e}"))?;
            if !status.success() {
                return Err(format!("smpq failed with {status}"));
            }
        }
    }
    let all: Vec<String> = groups.iter().flatten().map(|n| n.replace('/', "\\")).collect();
    std::fs::write(archive.with_extension("names"), all.join("\n")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&staging);
    Ok(archive)
}

/// The MPQ rows: every file read and decompressed, ours on one thread and on all, against StormLib.
pub(crate) fn compare_mpq(archive: &Path, runs: usize) {
    let mb = std::fs::metadata(archive).map(|m| m.len()).unwrap_or(0) as f64 / (1 << 20) as f64;
    let files = archive_names(archive).map(|n| n.len()).unwrap_or(0);
    let storm = measure("stormlib", archive, runs);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "\n| archive | MB | files | ours | ours MB/s | StormLib | StormLib MB/s | speed-up | bytes read ours / StormLib | working MB ours / StormLib |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (kind, label) in [("ours-mpq", "1 thread".to_string()), ("ours-mpq-threads", format!("{threads} threads"))] {
        let ours = measure(kind, archive, runs);
        let rate = |v: &Value| seconds(v).map(|s| format!("{:.0}", mb / s)).unwrap_or_else(|| "–".into());
        let ratio = match (seconds(&ours), seconds(&storm)) {
            (Some(x), Some(y)) => format!("{:.1}×", y / x),
            _ => "–".into(),
        };
        println!(
            "| {} ({label}) | {mb:.1} | {files} | {} | {} | {} | {} | {ratio} | {} / {} | {:.0} / {:.0} |",
            archive.file_name().unwrap().to_string_lossy(),
            describe(&ours),
            rate(&ours),
            describe(&storm),
            rate(&storm),
            ours["triangles"],
            storm["triangles"],
            working_mb(&ours),
            working_mb(&storm),
        );
        if label == "1 thread"
            && let (Some(x), Some(y)) = (seconds(&ours), seconds(&storm))
        {
            println!(
                "- MPQ every file read, one thread, vs StormLib {:.2}× (target: ahead, > 1×): {}",
                y / x,
                verdict(y / x > 1.0)
            );
        }
    }
}
