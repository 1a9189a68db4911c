//! The kiss3d examples rendered headless (no display needed): each one's screenshot exists, is
//! not blank, and shows what the simulation says it should.

use image::RgbImage;
use minirigid::collide::d2::obb2_sat;
use minirigid::collide::obb_obb_intersects;
use minirigid::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Mutex;

/// Software rendering is heavy on a 2-core machine: one example at a time.
static RENDER: Mutex<()> = Mutex::new(());

/// `target/<profile>/examples/<name>`, built by `cargo test` along with the tests.
fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let path = dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: `cargo test` builds the examples",
        path.display()
    );
    path
}

fn run(name: &str, args: &[&str]) -> Output {
    let _guard = RENDER.lock().unwrap_or_else(|e| e.into_inner());
    Command::new(example_binary(name))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("the example starts")
}

/// Runs `name` headless for `frames` frames and returns its screenshot.
fn render(name: &str, frames: u64, extra: &[&str]) -> RgbImage {
    render_with_report(name, frames, extra).0
}

/// [`render`], and the `key=value` lines the example printed about its simulation.
fn render_with_report(
    name: &str,
    frames: u64,
    extra: &[&str],
) -> (RgbImage, BTreeMap<String, String>) {
    let path = std::env::temp_dir().join(format!(
        "minirigid-{name}-{frames}-{}-{}.png",
        extra.join("_").replace(['/', ','], "_"),
        std::process::id()
    ));
    let frames = frames.to_string();
    let mut args = vec![
        "--headless",
        "--frames",
        &frames,
        "--screenshot",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = run(name, &args);
    assert!(
        output.status.success(),
        "{name} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let image = image::open(&path).expect("a PNG screenshot").to_rgb8();
    std::fs::remove_file(&path).ok();
    assert_not_blank(&image, name);
    let report = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    (image, report)
}

/// A number from an example's report.
fn number(report: &BTreeMap<String, String>, key: &str) -> f64 {
    report
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {report:?}"))
        .parse()
        .unwrap_or_else(|_| panic!("{key} is not a number in {report:?}"))
}

fn assert_not_blank(image: &RgbImage, name: &str) {
    let first = image.get_pixel(0, 0);
    let different = image.pixels().filter(|p| *p != first).count();
    assert!(
        different > (image.width() * image.height()) as usize / 100,
        "{name}: the screenshot is blank ({different} pixels differ from the corner)"
    );
}

/// The examples' red (drawn as 0.95, 0.1, 0.1; lit and gamma-corrected on screen).
fn is_red(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(f32::from);
    r > 150.0 && r > g + 80.0 && r > b + 80.0
}

/// The examples' blue (drawn as 0.1, 0.2, 0.95). Cyan and lavender do not pass.
fn is_blue(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(f32::from);
    b > 150.0 && b > r + 80.0 && b > g + 60.0
}

/// The orange of the bouncing cube (about 220, 165, 65 once lit): red above green, green well
/// above blue. The walls are lavender, the background grey, the text white.
fn is_orange(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(f32::from);
    r > 150.0 && r > g + 30.0 && g > 2.0 * b
}

fn count(image: &RgbImage, test: fn(&image::Rgb<u8>) -> bool) -> usize {
    image.pixels().filter(|p| test(p)).count()
}

/// The mean x of the pixels passing `test`.
fn centroid_x(image: &RgbImage, test: fn(&image::Rgb<u8>) -> bool) -> f64 {
    let xs: Vec<f64> = image
        .enumerate_pixels()
        .filter(|(_, _, p)| test(p))
        .map(|(x, _, _)| f64::from(x))
        .collect();
    assert!(!xs.is_empty(), "no such pixels");
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn bouncing_box_moves_between_frames() {
    let first = render("bouncing_box", 1, &[]);
    let later = render("bouncing_box", 31, &[]);
    assert!(
        count(&first, is_orange) > 200,
        "the moving cube is not visible"
    );
    // 30 steps of 0.1 m to the right.
    let shift = centroid_x(&later, is_orange) - centroid_x(&first, is_orange);
    assert!(shift > 30.0, "the cube moved {shift} px");
}

#[test]
fn obb2d_spin_is_red_exactly_when_the_rectangles_collide() {
    // The seed's rectangles at a tick (strict, as the example draws them).
    let colliding = |tick: u64| {
        let t = tick as Real;
        let a = Obb2::new(
            Point2::new(100.0, 150.0),
            Vector2::new(15.0, 70.0),
            (30.0 + 2.0 * t).to_radians(),
        );
        let b = Obb2::new(
            Point2::new(100.0, 70.0),
            Vector2::new(20.0, 55.0),
            (40.0 + t).to_radians(),
        );
        obb2_sat(&a, &b).separating_axis(true).is_none()
    };
    let hit = (0..400)
        .find(|&t| colliding(t))
        .expect("they collide at some tick");
    let miss = (0..400)
        .find(|&t| !colliding(t))
        .expect("they are apart at some tick");
    // Frame N shows tick N - 1.
    let red = render("obb2d_spin", hit + 1, &[]);
    assert!(
        count(&red, is_red) > 2_000 && count(&red, is_blue) < 50,
        "tick {hit} should be red"
    );
    let blue = render("obb2d_spin", miss + 1, &[]);
    assert!(
        count(&blue, is_blue) > 2_000 && count(&blue, is_red) < 50,
        "tick {miss} should be blue"
    );
}

#[test]
fn box_box_colour_follows_obb_obb_intersects() {
    let a = Obb::new(
        Point3::origin(),
        UnitQuaternion::identity(),
        Vector3::new(1.0, 0.6, 0.8),
    );
    let half_b = Vector3::new(0.7, 0.9, 0.5);
    let placements = [
        ("1.6,0.5,0.2", "0.3,0.5,0.1"),
        ("2.9,0.6,0.2", "0.3,0.5,0.1"),
        ("1.9,1.3,0.0", "0.0,0.0,0.785"),
    ];
    let mut seen = [false, false];
    for (offset, angles) in placements {
        let o: Vec<Real> = offset.split(',').map(|s| s.parse().unwrap()).collect();
        let r: Vec<Real> = angles.split(',').map(|s| s.parse().unwrap()).collect();
        let b = Obb::new(
            Point3::new(o[0], o[1], o[2]),
            UnitQuaternion::from_euler_angles(r[0], r[1], r[2]),
            half_b,
        );
        let expected = obb_obb_intersects(&a, &b);
        seen[usize::from(expected)] = true;
        let image = render("box_box", 1, &["--offset", offset, "--angles", angles]);
        let red = count(&image, is_red);
        if expected {
            assert!(
                red > 2_000,
                "{offset} {angles}: intersecting, but only {red} red pixels"
            );
        } else {
            assert!(red < 50, "{offset} {angles}: apart, but {red} red pixels");
        }
    }
    assert_eq!(seen, [true, true], "both outcomes are tested");
}

#[test]
fn many_bodies_renders_a_thousand_bodies_in_the_room() {
    // The default 1,000 bodies: the viewer draws them instanced (one cube and one sphere mesh
    // for all), which keeps memory flat per body under the software renderers.
    let image = render("many_bodies", 3, &["--scene", "room", "--bodies", "1000"]);
    // The boxes (orange-brown) and the balls (green) both show.
    let brown = count(&image, is_box_orange);
    let green = count(&image, is_ball_green);
    assert!(brown > 50_000, "{brown} box pixels");
    assert!(green > 10_000, "{green} ball pixels");
}

/// The boxes of the room and the pile (0.8, 0.4, 0.2 once lit), awake.
fn is_box_orange(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(f32::from);
    r > 120.0 && r > g + 25.0 && g > b + 15.0
}

/// The balls of the room and the pile.
fn is_ball_green(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0.map(f32::from);
    g > 100.0 && g > r + 30.0 && g > b + 10.0
}

#[test]
fn the_pile_comes_to_rest_inside_the_bin() {
    // 300 bodies dropped into the bin, 600 steps (10 s): all inside, all at rest, and asleep
    // (drawn dimmer: the awake colours are gone from the picture).
    let (image, report) = render_with_report(
        "many_bodies",
        12,
        &["--bodies", "300", "--steps-per-frame", "50"],
    );
    let bodies = number(&report, "bodies");
    assert_eq!(bodies, 300.0, "{report:?}");
    assert_eq!(number(&report, "inside"), bodies, "{report:?}");
    assert!(number(&report, "fastest") < 0.05, "{report:?}");
    assert_eq!(number(&report, "asleep"), bodies, "{report:?}");
    // Drawn dimmer than while they fall: the boxes' mean red channel drops by over a quarter.
    let (falling, _) = render_with_report(
        "many_bodies",
        2,
        &["--bodies", "300", "--steps-per-frame", "5"],
    );
    let (asleep, awake) = (box_red(&image), box_red(&falling));
    assert!(
        asleep < 0.75 * awake,
        "boxes asleep {asleep:.0}, falling {awake:.0}"
    );
}

/// The mean red channel of the pixels in a box's hue (red above green above blue, well
/// saturated), awake or asleep.
fn box_red(image: &RgbImage) -> f64 {
    let reds: Vec<f64> = image
        .pixels()
        .filter(|p| {
            let [r, g, b] = p.0.map(f64::from);
            r > g + 15.0 && g > b + 10.0 && r > 1.6 * b
        })
        .map(|p| f64::from(p.0[0]))
        .collect();
    assert!(reds.len() > 5_000, "{} box pixels", reds.len());
    reds.iter().sum::<f64>() / reds.len() as f64
}

/// The pyramid example's camera (base 20) and where it draws a world point, as
/// `OrbitCamera3d::new` sets it up: 45 degrees of vertical field of view, 1024 x 576.
fn pyramid_pixel(point: Point3) -> (f32, f32) {
    let size = 20.0;
    let eye = Point3::new(0.3 * size, 0.6 * size + 2.0, 1.9 * size + 8.0);
    let at = Point3::new(0.0, 0.4 * size, 0.0);
    let view = Isometry3::look_at_rh(&eye, &at, &Vector3::y());
    let projection =
        nalgebra::Perspective3::new(1024.0 / 576.0, std::f32::consts::FRAC_PI_4, 0.1, 1000.0);
    let ndc = projection.project_point(&view.transform_point(&point));
    ((ndc.x + 1.0) * 0.5 * 1024.0, (1.0 - ndc.y) * 0.5 * 576.0)
}

#[test]
fn the_pyramid_stands() {
    // 150 steps: the top cube's centre stays within 5 cm of where it started.
    let (image, report) = render_with_report("pyramid", 150, &[]);
    assert_eq!(number(&report, "cubes"), 210.0);
    assert!(number(&report, "top_moved") < 0.05, "{report:?}");
    assert_eq!(number(&report, "cubes_moved_over_10cm"), 0.0, "{report:?}");
    // The top cube is drawn where the camera puts it: yellow under its centre (dimmed once it
    // sleeps), not the grey of the sky behind it.
    let (x, y) = pyramid_pixel(Point3::new(0.0, 19.5, 0.0));
    let p = image.get_pixel(x as u32, y as u32);
    let [r, g, b] = p.0.map(f32::from);
    assert!(r > 100.0 && g > 80.0 && b < 0.6 * g, "top cube pixel {p:?}");
    let above = image.get_pixel(x as u32, (y - 30.0) as u32);
    assert!(
        above.0[2] >= above.0[0],
        "sky above the top cube: {above:?}"
    );
}

#[test]
fn the_keva_tower_holds_still() {
    // The top block of rapier's keva tower (198 planks on edge) at 4 substeps for 60 steps:
    // with the default two soft iterations its top does not creep (0.45 mm measured) and no
    // plank falls.
    let (_, report) = render_with_report("tower", 60, &["--blocks", "1", "--substeps", "4"]);
    assert_eq!(number(&report, "planks"), 198.0, "{report:?}");
    assert_eq!(number(&report, "fallen"), 0.0, "{report:?}");
    assert!(number(&report, "top_lean") < 0.005, "{report:?}");
}

#[test]
fn joints_hold_a_chain_plumb_a_door_at_its_limit_and_a_ragdoll_together() {
    // The joints example's four scenes for 150 steps (2.5 s): the chain of 20 links hangs
    // straight down from its anchor, the motorised door has opened to its limit and stopped
    // there, the ragdoll has landed with every joint's anchors together.
    let (_, report) = render_with_report("joints", 150, &[]);
    assert_eq!(number(&report, "joints"), 42.0, "{report:?}");
    assert!(number(&report, "chain_off_axis") < 1e-3, "{report:?}");
    let (angle, limit) = (number(&report, "door_angle"), number(&report, "door_limit"));
    assert!((angle - limit).abs() < 0.5f64.to_radians(), "{report:?}");
    assert!(number(&report, "ragdoll_gap") < 0.01, "{report:?}");
}

#[test]
fn box3d_humans_rain_down_and_land_in_one_piece() {
    // Box3D's rain (10 x 10 cells, each a mesh floor with a torus mesh) for 270 steps (nine
    // frames of 30 after the first): nine columns of 30 humans dropped from 20 m. Those of the
    // first two columns have fallen for over four seconds: nearly all lie still (slower than
    // 1 m/s; 57 of 60 measured), each in one piece (their joints' anchors 0.3 mm apart at most
    // once landed, where Box3D's rest pose leaves some 4 cm apart), and no contact is deeper
    // than 2 cm (9.1 mm measured).
    let (_, report) = render_with_report("rain", 10, &["--steps-per-frame", "30"]);
    assert_eq!(number(&report, "humans"), 270.0, "{report:?}");
    assert_eq!(number(&report, "joints"), 270.0 * 13.0, "{report:?}");
    assert!(number(&report, "landed") >= 50.0, "{report:?}");
    assert!(number(&report, "landed_gap") < 0.002, "{report:?}");
    assert!(number(&report, "deepest") < 0.02, "{report:?}");
}

#[test]
fn the_level_keeps_its_bodies_on_its_surfaces() {
    // The level example's 32 boxes and balls dropped onto a heightfield and two meshes (a
    // ramp and stairs) for 150 steps (2.5 s): none sinks into the surface under it by more
    // than a millimetre (measured: 0.02 mm), none is lost below the level.
    let (image, report) = render_with_report("level", 150, &["--bodies", "32"]);
    assert_eq!(number(&report, "bodies"), 32.0, "{report:?}");
    assert_eq!(number(&report, "lost"), 0.0, "{report:?}");
    assert!(number(&report, "lowest") > -1e-3, "{report:?}");
    // The ground is drawn: green covers a good part of the frame.
    let green = image
        .pixels()
        .filter(|p| p[1] > p[0].saturating_add(20) && p[1] > p[2].saturating_add(20))
        .count();
    assert!(green * 5 > image.pixels().len(), "{green} green pixels");
}

#[test]
fn a_fired_ball_knocks_cubes_out() {
    let (_, report) = render_with_report("pyramid", 120, &["--fire-frame", "5"]);
    assert_eq!(number(&report, "balls"), 1.0);
    assert_eq!(
        report.get("ball_touched_cube").map(String::as_str),
        Some("true")
    );
    assert!(
        number(&report, "cubes_moved_over_10cm") >= 3.0,
        "{report:?}"
    );
}

#[test]
fn a_grabbed_cube_follows_the_cursor_and_the_others_stay() {
    // Press on the top cube, drag up and to the right, hold for 90 steps.
    let (x, y) = pyramid_pixel(Point3::new(0.0, 19.5, 0.0));
    let grab = format!("{x},{y}");
    let drag = format!("{},{}", x + 150.0, y - 60.0);
    let (_, report) = render_with_report("pyramid", 90, &["--grab", &grab, "--drag", &drag]);
    assert_ne!(
        report.get("grabbed").map(String::as_str),
        Some("none"),
        "{report:?}"
    );
    let (start, end) = (
        number(&report, "grab_start_gap"),
        number(&report, "grab_end_gap"),
    );
    assert!(start > 3.0, "the target is metres away: {report:?}");
    assert!(
        end < 0.2 * start,
        "the cube closed on its target: {report:?}"
    );
    assert!(number(&report, "others_moved_max") < 0.05, "{report:?}");
}

#[test]
fn without_a_display_the_examples_say_how_to_run_headless() {
    for name in [
        "bouncing_box",
        "obb2d_spin",
        "box_box",
        "many_bodies",
        "pyramid",
    ] {
        let _guard = RENDER.lock().unwrap_or_else(|e| e.into_inner());
        let output = Command::new(example_binary(name))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .expect("the example starts");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains("no display") && stderr.contains("--headless"),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
    // A DISPLAY with no X server behind it: a message, not a panic.
    let _guard = RENDER.lock().unwrap_or_else(|e| e.into_inner());
    let output = Command::new(example_binary("bouncing_box"))
        .env("DISPLAY", ":99")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("the example starts");
    drop(_guard);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("could not open a window") && stderr.contains("--headless"),
        "{stderr}"
    );
    let output = run("box_box", &["--frames", "zero"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run("box_box", &["--offset", "1,2"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_shapes_come_to_rest_in_their_bin() {
    // The shapes example's 60 capsules, boxes, balls, rocks, dice, tables and dumbbells poured
    // into a bin, 600 steps (10 s): none has left it, and every one sleeps.
    let (_, report) =
        render_with_report("shapes", 75, &["--bodies", "60", "--steps-per-frame", "8"]);
    assert_eq!(number(&report, "bodies"), 60.0, "{report:?}");
    assert_eq!(number(&report, "lost"), 0.0, "{report:?}");
    assert_eq!(number(&report, "asleep"), 60.0, "{report:?}");
}

#[test]
fn the_character_walks_its_scripted_path_through_the_level() {
    // The character example's scripted walk, 540 steps: north, east into the trigger (which
    // reports it once, and its leaving), west through the crates (which it pushes), south,
    // and east up four 0.25 m steps onto the top one, where it stands.
    let (_, report) = render_with_report("character", 540, &[]);
    assert_eq!(number(&report, "entered"), 1.0, "{report:?}");
    assert_eq!(number(&report, "inside"), 0.0, "{report:?}");
    assert!(number(&report, "pushed") > 0.5, "{report:?}");
    assert_eq!(number(&report, "grounded"), 1.0, "{report:?}");
    let (x, y) = (number(&report, "x"), number(&report, "y"));
    assert!((3.0..3.8).contains(&x), "on the top step: {report:?}");
    assert!(
        (y - (1.0 + 0.81)).abs() < 0.03,
        "standing on it: {report:?}"
    );
}
