//! Box3D's pyramid on a floor (`--base N`, default 20: 210 cubes): the contact solver holding a
//! stack at rest, until you shoot at it or pull a cube out.
//!
//! Keys: F fires a ball through the cursor (it starts 6 m short of what the cursor points at); left drag grabs a cube; Space pauses, S steps once,
//! R resets, C draws contacts, F5 saves a snapshot to `pyramid.snapshot.json`, F9 loads it.
//! The right button orbits the camera, the middle one pans.
//!
//! Run: `cargo run --example pyramid`; without a display:
//! `cargo run --example pyramid -- --headless --frames 120 --fire-frame 30 --screenshot out.png`
//! (each frame one step; `--fire-frame N` fires a ball along the view at frame N). Off-screen
//! runs end by printing what happened as `key=value` lines, which the render tests read.

mod support;

use kiss3d::prelude::*;
use minirigid::prelude::{BodyDesc, BodyHandle, Point3, Ray, Real, World};
use support::Options;
use support::viewer::Viewer;
use testbed::scenes::pyramid;

const SNAPSHOT_FILE: &str = "pyramid.snapshot.json";
/// The fired ball: radius (m), density (kg/m^3; a cube weighs 1 kg) and speed (m/s).
const BALL: (Real, Real, Real) = (0.35, 10.0, 40.0);

/// A heavy ball along `ray`, from 6 m before the first body the ray meets (or 2 m in front of
/// the camera when that is closer), so that gravity barely bends its path to what was aimed at.
fn fire(world: &mut World, ray: &Ray) -> Option<BodyHandle> {
    let (radius, density, speed) = BALL;
    let reach = world
        .cast_ray(ray, 1e4)
        .map_or(2.0, |(_, hit)| (hit.toi - 6.0).max(2.0));
    let start = ray.origin + ray.dir * reach;
    let desc = BodyDesc::dynamic()
        .ball(radius)
        .density(density)
        .position(start.coords)
        .linvel(ray.dir * speed)
        .color([0.2, 0.5, 0.95]);
    world.insert(desc).ok()
}

#[kiss3d::main]
async fn main() {
    let mut names = vec!["base", "fire-frame"];
    names.extend(Viewer::OPTIONS);
    let options = Options::parse("pyramid", &names);
    let base = options
        .numbers("base", 1)
        .map_or(20, |v| v[0].clamp(1.0, 100.0) as usize);
    let fire_frame = options
        .numbers("fire-frame", 1)
        .map(|v| v[0].max(0.0) as u64);
    let size = base as f32;
    let eye = Vec3::new(0.3 * size, 0.6 * size + 2.0, 1.9 * size + 8.0);
    let at = Vec3::new(0.0, 0.4 * size, 0.0);
    let mut viewer = Viewer::open("pyramid", options, eye, at).await;

    let (mut world, mut cubes) = pyramid(base);
    let mut starts: Vec<(BodyHandle, Point3)> = positions(&world, &cubes);
    let mut balls: Vec<BodyHandle> = Vec::new();
    let mut ball_touched = false;
    loop {
        for key in viewer.keys() {
            match key {
                Key::R => {
                    (world, cubes) = pyramid(base);
                    starts = positions(&world, &cubes);
                    balls.clear();
                    viewer.grab = None;
                    viewer.stage.status = "reset".into();
                }
                Key::F => {
                    let ray = viewer.cursor_ray();
                    balls.extend(fire(&mut world, &ray));
                }
                _ => {
                    viewer.snapshot_key(key, &mut world, SNAPSHOT_FILE.as_ref());
                }
            }
        }
        if viewer.stage.is_headless() && Some(viewer.stage.frame()) == fire_frame {
            let ray = viewer.view_ray();
            balls.extend(fire(&mut world, &ray));
        }
        viewer.advance(&mut world);
        ball_touched |= world.contacts().iter().any(|p| {
            (balls.contains(&p.a) && cubes.contains(&p.b))
                || (balls.contains(&p.b) && cubes.contains(&p.a))
        });
        let top_moved = starts.last().and_then(|s| moved_by(&world, s));
        let lines = [
            format!(
                "{} cubes   step {}   step time {:.2} ms   {} contacts   {} asleep",
                cubes.len(),
                world.step_count(),
                viewer.step_ms(),
                world.contacts().len(),
                world.sleeping_count()
            ),
            format!("top cube moved {:.3} m", top_moved.unwrap_or(0.0)),
            viewer.help(),
            "F fire   R reset   F5 save   F9 load".into(),
        ];
        if !viewer.show(&world, &lines).await {
            break;
        }
    }
    if viewer.stage.is_headless() {
        let moved = |threshold: Real| {
            starts
                .iter()
                .filter(|s| moved_by(&world, s).is_some_and(|m| m > threshold))
                .count()
        };
        let top = starts.last().and_then(|s| moved_by(&world, s));
        println!("cubes={}", cubes.len());
        println!("top_moved={}", top.unwrap_or(Real::NAN));
        println!("cubes_moved_over_10cm={}", moved(0.1));
        println!("balls={}", balls.len());
        println!("ball_touched_cube={ball_touched}");
        viewer.report_grab(&world, &starts);
    }
}

/// How far a body has moved from `start`; `None` once it is gone.
fn moved_by(world: &World, (handle, start): &(BodyHandle, Point3)) -> Option<Real> {
    Some((world.body(*handle)?.position() - start).norm())
}

/// Each body's position, in the order given.
fn positions(world: &World, handles: &[BodyHandle]) -> Vec<(BodyHandle, Point3)> {
    handles
        .iter()
        .filter_map(|h| Some((*h, world.body(*h)?.position())))
        .collect()
}
