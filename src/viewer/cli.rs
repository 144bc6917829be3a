//! The command line.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

#[derive(Parser, Debug, Clone)]
#[command(
    name = "lwo-wmo-viewer",
    version,
    about = "View and inspect LightWave objects (.lwo, .lxo) and World of Warcraft WMO and M2 files",
    after_help = "Exit codes: 0 ok, 1 a file could not be read (the error names the file, chunk and byte offset), 2 bad usage."
)]
pub struct Args {
    /// File to open (.lwo, .lxo, .wmo root or group, .m2)
    pub file: Option<PathBuf>,

    /// With --info: more files, each printed after the first; with --output-dir: more paths
    #[arg(value_name = "MORE")]
    pub more_files: Vec<PathBuf>,

    /// Print the format, the chunk tree and a summary, and exit without opening a window
    #[arg(long)]
    pub info: bool,

    /// With --info: print one JSON object instead of text
    #[arg(long, requires = "info")]
    pub json: bool,

    /// Render one frame to this PNG file without a window, and exit
    #[arg(long, value_name = "PNG")]
    pub output: Option<PathBuf>,

    /// Render a thumbnail of every model that FILE and MORE name into DIR, and list them in
    /// DIR/index.csv (file, format, triangles, warnings, error, milliseconds, image). Each is a model
    /// file, a folder (searched recursively) or, with --data, a path or `*` wildcard inside the game
    /// data ('World\wmo\*.wmo'). One process: the next models load while one is drawn
    #[arg(long, value_name = "DIR", conflicts_with_all = ["info", "output", "export", "watch", "measure_frames"])]
    pub output_dir: Option<PathBuf>,

    /// Size of the --output and --output-dir images, WIDTHxHEIGHT
    #[arg(long, default_value = "1280x720", value_parser = parse_resolution)]
    pub resolution: (u32, u32),

    /// In the window: the size of F12 and File > Save screenshot images, WIDTHxHEIGHT (default: the 3D
    /// view's size on screen; the panel's File menu changes it)
    #[arg(long, value_name = "WxH", value_parser = parse_resolution, conflicts_with_all = ["info", "output", "export", "output_dir"])]
    pub screenshot_size: Option<(u32, u32)>,

    /// Camera direction for --output and the initial view
    #[arg(long, value_enum, default_value_t = ViewDirection::Iso)]
    pub view: ViewDirection,

    /// Put the camera at EYE looking at TARGET for --output and the first model in the window, instead
    /// of framing the model from --view; each is x,y,z in the view's frame (Y up: a WMO's (x, y, z) is
    /// (x, z, −y)), e.g. `--camera 4,3,-10:40,3,-10`
    #[arg(long, value_name = "EYE:TARGET", value_parser = crate::viewer::camera::parse_camera)]
    pub camera: Option<crate::viewer::camera::CameraPlacement>,

    /// Draw every WMO group, also those the camera cannot see through a chain of portals (in the
    /// window: the panel's View section)
    #[arg(long)]
    pub no_portal_culling: bool,

    /// Also draw the WMO portal polygons (in the window: the panel's toggle)
    #[arg(long)]
    pub portals: bool,

    /// WMO doodad set to show with set 0 (in the window: the panel's choice)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub doodad_set: u32,

    /// With --output: once the model is on screen, render N more frames and print, as JSON lines on
    /// stdout, when the first frame showing it was drawn and the time each frame took, the main
    /// world's in CPU time and wall time (benchmarks; the render world then runs after the main world,
    /// not beside it)
    #[arg(long, value_name = "N", requires = "output")]
    pub measure_frames: Option<usize>,

    /// Write what the window would show to a glTF file (.glb, or .gltf with a .bin beside it), and exit
    #[arg(long, value_name = "OUT.glb|OUT.gltf", conflicts_with_all = ["info", "output"])]
    pub export: Option<PathBuf>,

    /// With --export: also write the WMO portal polygons
    #[arg(long, requires = "export")]
    pub export_portals: bool,

    /// With --export: also write the WMO liquid surfaces
    #[arg(long, requires = "export")]
    pub export_liquids: bool,

    /// With --export: also write M2 texture-coordinate, colour and transparency animation, as
    /// KHR_texture_transform moved by KHR_animation_pointer channels (Blender, Babylon.js and the
    /// Khronos validator read them; readers built on the Rust `gltf` crate, Bevy's among them, refuse
    /// such a file)
    #[arg(long, requires = "export")]
    pub export_material_animation: bool,

    /// In the window: reload the model whenever it or one of its files (groups, skins, doodad models,
    /// textures, the archive they came from) changes on disk, keeping the view
    #[arg(long, conflicts_with_all = ["info", "output", "export"])]
    pub watch: bool,

    /// Set a LightWave morph's weight (0 at rest, 1 fully applied) for --output, --export and the
    /// window; repeatable
    #[arg(long, value_name = "NAME=WEIGHT", value_parser = crate::viewer::morphs::parse_morph_setting)]
    pub morph: Vec<(String, f32)>,

    /// The sequence an M2 opened on its own plays: an AnimationData id (`0`), id and variation (`4.1`)
    /// or name (`Stand`, `Walk`); default Stand. For --output, --output-dir, --export (its pose) and the
    /// window
    #[arg(long, value_name = "ID|NAME")]
    pub animation: Option<String>,

    /// Seconds into the M2 animations (the sequence and the global sequences) for --output and
    /// --output-dir, where the clock then stands still (default 0); for --export, the pose its nodes
    /// and materials are written in (default: at rest); in the window, where it starts
    #[arg(long, value_name = "SECONDS", value_parser = parse_time)]
    pub time: Option<f64>,

    /// Game data: a folder that holds `World\…`, or a client's `Data` folder of MPQ archives, for WMO
    /// and M2 textures and doodad models (default: walk up from the file). A FILE that is not on disk is
    /// looked up inside it: `--data ~/wow/Data 'World\wmo\…\Stormwind.wmo'`
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,

    /// The game data `--data` names, opened once (its archives' tables read) for the whole run.
    #[arg(skip)]
    pub game_data: Option<std::sync::Arc<dyn crate::source::FileSource>>,

    /// The community listfile (`FileDataID;path` lines, as wow.export and others publish it): names the
    /// skins and textures that Legion-era (MD21) models give only by number, looked up in the game data
    #[arg(long, value_name = "FILE")]
    pub listfile: Option<PathBuf>,

    /// `--listfile`, read once for the whole run.
    #[arg(skip)]
    pub listfile_read: Option<std::sync::Arc<crate::source::Listfile>>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewDirection {
    #[default]
    Iso,
    Front,
    Side,
    Top,
}

pub fn parse_resolution(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("expected WIDTHxHEIGHT, got {s}"))?;
    let parse = |v: &str| v.trim().parse::<u32>().map_err(|e| format!("{v}: {e}"));
    let (w, h) = (parse(w)?, parse(h)?);
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("{w}x{h}: each side must be between 16 and 8192"));
    }
    Ok((w, h))
}

pub fn parse_time(s: &str) -> Result<f64, String> {
    let seconds: f64 = s.trim().parse().map_err(|e| format!("{s}: {e}"))?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("{s}: a time is a number of seconds, 0 or more"));
    }
    Ok(seconds)
}
