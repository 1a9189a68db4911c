//! What the kiss3d examples share: command-line options, opening a window or an off-screen
//! surface, screenshots, conversions from nalgebra to kiss3d's glam types (this file); the frame
//! around every example, text and pacing ([`stage`]); and a viewer that draws a `World`
//! ([`viewer`]).
//!
//! Every example takes `--headless --frames N --screenshot FILE.png`: it then renders off-screen
//! (no display needed), runs N frames, saves the last one and exits.

#![allow(dead_code)]

pub mod stage;
pub mod viewer;

use kiss3d::prelude::*;
use minirigid::prelude::{Isometry3, Point3, Real, UnitQuaternion, Vector3};
use std::path::PathBuf;

/// Options common to all examples.
#[derive(Debug, Default)]
pub struct Options {
    /// Render off-screen instead of in a window.
    pub headless: bool,
    /// Stop after this many frames.
    pub frames: Option<u64>,
    /// Save the last frame here (PNG).
    pub screenshot: Option<PathBuf>,
    /// Options the example itself reads, as `(name, value)`.
    pub extra: Vec<(String, String)>,
}

impl Options {
    /// Parses `std::env::args`; `extra_names` are the example's own `--name value` options.
    /// Prints the usage and exits with status 2 on a bad command line.
    pub fn parse(example: &str, extra_names: &[&str]) -> Self {
        match Self::try_parse(std::env::args().skip(1), extra_names) {
            Ok(options) => options,
            Err(message) => {
                eprintln!("{example}: {message}");
                eprintln!(
                    "usage: cargo run --example {example} -- [--headless] [--frames N] \
                     [--screenshot FILE.png]{}",
                    extra_names
                        .iter()
                        .map(|n| format!(" [--{n} VALUE]"))
                        .collect::<String>()
                );
                std::process::exit(2);
            }
        }
    }

    fn try_parse(
        mut args: impl Iterator<Item = String>,
        extra_names: &[&str],
    ) -> Result<Self, String> {
        let mut options = Self::default();
        while let Some(arg) = args.next() {
            let mut value =
                |name: &str| args.next().ok_or_else(|| format!("--{name} needs a value"));
            match arg.as_str() {
                "--headless" => options.headless = true,
                "--frames" => {
                    let v = value("frames")?;
                    let n: u64 = v.parse().map_err(|_| {
                        format!("--frames must be a positive whole number, got {v:?}")
                    })?;
                    if n == 0 {
                        return Err("--frames must be at least 1".into());
                    }
                    options.frames = Some(n);
                }
                "--screenshot" => options.screenshot = Some(PathBuf::from(value("screenshot")?)),
                other => match other.strip_prefix("--") {
                    Some(name) if extra_names.contains(&name) => {
                        let v = value(name)?;
                        options.extra.push((name.to_owned(), v));
                    }
                    _ => return Err(format!("unknown argument {other:?}")),
                },
            }
        }
        if options.headless && options.frames.is_none() {
            options.frames = Some(1);
        }
        Ok(options)
    }

    /// The value of the example's own option `name`, as given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.extra
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of the example's own option `name`, parsed as numbers separated by commas.
    pub fn numbers(&self, name: &str, count: usize) -> Option<Vec<Real>> {
        let (_, text) = self.extra.iter().rev().find(|(n, _)| n == name)?;
        let values: Result<Vec<Real>, _> =
            text.split(',').map(|s| s.trim().parse::<Real>()).collect();
        match values {
            Ok(v) if v.len() == count && v.iter().all(|x| x.is_finite()) => Some(v),
            _ => {
                eprintln!(
                    "--{name} needs {count} finite numbers separated by commas, got {text:?}"
                );
                std::process::exit(2);
            }
        }
    }
}

/// Where frames go: a real window, or an off-screen surface.
pub enum Display {
    /// An interactive window.
    Window(Window),
    /// Off-screen rendering, no display needed.
    Offscreen(OffscreenSurface),
}

impl Display {
    /// Opens a window, or an off-screen surface with `--headless`. Without a display and without
    /// `--headless`, says so and how to run headless, and exits with status 1.
    pub async fn open(title: &str, width: u32, height: u32, options: &Options) -> Self {
        if options.headless {
            let surface = without_panic(title, "create an off-screen surface", || {
                kiss3d::pollster::block_on(OffscreenSurface::new(width, height))
            });
            return Self::Offscreen(surface.unwrap_or_else(|| {
                eprintln!(
                    "Off-screen rendering needs a graphics adapter; Mesa's software one will do:\n  \
                     apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri"
                );
                std::process::exit(1)
            }));
        }
        let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        if !has_display {
            eprintln!(
                "{title}: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set).\n\
                 Run it headless to render off-screen and save a picture, for example:\n  \
                 cargo run --example {title} -- --headless --frames 60 --screenshot {title}.png"
            );
            std::process::exit(1);
        }
        let window = without_panic(title, "open a window", || {
            kiss3d::pollster::block_on(Window::new_with_size(title, width, height))
        });
        Self::Window(window.unwrap_or_else(|| {
            eprintln!(
                "Run it headless to render off-screen and save a picture, for example:\n  \
                 cargo run --example {title} -- --headless --frames 60 --screenshot {title}.png"
            );
            std::process::exit(1)
        }))
    }

    /// The window to draw into (the off-screen surface has one too).
    pub fn window(&mut self) -> &mut Window {
        match self {
            Self::Window(window) => window,
            Self::Offscreen(surface) => surface.window_mut(),
        }
    }

    /// The size of the frame, pixels.
    pub fn size(&self) -> Vec2 {
        let size = match self {
            Self::Window(window) => window.size(),
            Self::Offscreen(surface) => surface.size(),
        };
        Vec2::new(size.x as f32, size.y as f32)
    }

    /// Whether this is the off-screen surface.
    pub fn is_headless(&self) -> bool {
        matches!(self, Self::Offscreen(_))
    }

    /// Renders a 3D frame; `false` when the window was closed.
    pub async fn render_3d(&mut self, scene: &mut SceneNode3d, camera: &mut impl Camera3d) -> bool {
        match self {
            Self::Window(window) => window.render_3d(scene, camera).await,
            Self::Offscreen(surface) => {
                surface.render_3d(scene, camera).await;
                true
            }
        }
    }

    /// Renders a 2D frame; `false` when the window was closed.
    pub async fn render_2d(&mut self, scene: &mut SceneNode2d, camera: &mut impl Camera2d) -> bool {
        match self {
            Self::Window(window) => window.render_2d(scene, camera).await,
            Self::Offscreen(surface) => {
                surface.render_2d(scene, camera).await;
                true
            }
        }
    }

    /// Saves the last rendered frame as a PNG; says where, or why it could not.
    pub fn save_screenshot(&self, path: &std::path::Path) -> bool {
        let image = match self {
            Self::Window(window) => window.snap_image(),
            Self::Offscreen(surface) => surface.snap_image(),
        };
        match image.save(path) {
            Ok(()) => {
                println!("saved {}", path.display());
                true
            }
            Err(e) => {
                eprintln!("could not save {}: {e}", path.display());
                false
            }
        }
    }
}

/// Runs `make`, turning a panic inside kiss3d (no X server behind `DISPLAY`, no graphics
/// adapter) into a message and `None`.
fn without_panic<T>(title: &str, what: &str, make: impl FnOnce() -> T) -> Option<T> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(make));
    std::panic::set_hook(quiet);
    match result {
        Ok(value) => Some(value),
        Err(payload) => {
            let reason = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown reason".into());
            eprintln!("{title}: could not {what}: {reason}");
            None
        }
    }
}

/// Counts frames against `--frames` and takes the screenshot at the last one.
pub struct FrameCounter {
    /// Frames shown so far.
    pub frame: u64,
    limit: Option<u64>,
}

impl FrameCounter {
    pub fn new(options: &Options) -> Self {
        Self {
            frame: 0,
            limit: options.frames,
        }
    }

    /// Call after rendering a frame: `true` while more frames should run. At the last one,
    /// saves `--screenshot` if given.
    pub fn after_frame(&mut self, display: &Display, options: &Options) -> bool {
        self.frame += 1;
        match self.limit {
            Some(limit) if self.frame >= limit => {
                if let Some(path) = &options.screenshot
                    && !display.save_screenshot(path)
                {
                    std::process::exit(1);
                }
                false
            }
            _ => true,
        }
    }
}

pub fn vec3(v: &Vector3) -> Vec3 {
    Vec3::from(*v)
}

pub fn point3(p: &Point3) -> Vec3 {
    Vec3::from(p.coords)
}

pub fn quat(q: &UnitQuaternion) -> Quat {
    Quat::from(*q)
}

pub fn pose(iso: &Isometry3) -> Pose3 {
    Pose3::from_parts(vec3(&iso.translation.vector), quat(&iso.rotation))
}

pub fn color(rgb: [Real; 3]) -> Color {
    Color::new(rgb[0], rgb[1], rgb[2], 1.0)
}
