//! The frame every example shares: the display (window or off-screen), the font, the frame count
//! with its screenshot, the text in the top-left corner, and the pacing of the simulation
//! (Space pauses, S steps once).

use super::{Display, FrameCounter, Options};
use kiss3d::prelude::*;
use std::sync::Arc;

/// The background of every example.
const BACKGROUND: Color = Color::new(0.12, 0.12, 0.14, 1.0);
/// The size of the text lines (pixels).
const TEXT_SIZE: f32 = 26.0;

/// A display with the example's text and frame count.
pub struct Stage {
    display: Display,
    font: Arc<Font>,
    frames: FrameCounter,
    options: Options,
    /// A line shown under the example's text until replaced (what the last key did).
    pub status: String,
}

impl Stage {
    /// Opens a window (or, with `--headless`, an off-screen surface) of `width x height`.
    pub async fn open(title: &str, options: Options, width: u32, height: u32) -> Self {
        let mut display = Display::open(title, width, height, &options).await;
        display.window().set_background_color(BACKGROUND);
        Self {
            display,
            font: Font::default(),
            frames: FrameCounter::new(&options),
            options,
            status: String::new(),
        }
    }

    /// The window to draw into (lines, points, text).
    pub fn window(&mut self) -> &mut Window {
        self.display.window()
    }

    /// The frame's size, pixels.
    pub fn window_size(&self) -> Vec2 {
        self.display.size()
    }

    /// Whether frames go off-screen (`--headless`).
    pub fn is_headless(&self) -> bool {
        self.display.is_headless()
    }

    /// How many frames have been shown.
    pub fn frame(&self) -> u64 {
        self.frames.frame
    }

    /// The command line.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// This frame's key presses and repeats (the camera does not see them), then the mouse
    /// events, which the camera keeps.
    pub fn input(&mut self) -> (Vec<(Key, Action, Modifiers)>, Vec<WindowEvent>) {
        let (mut keys, mut mouse) = (Vec::new(), Vec::new());
        for mut event in self.display.window().events().iter() {
            match event.value {
                WindowEvent::Key(key, action, modifiers) if action != Action::Release => {
                    event.inhibited = true;
                    keys.push((key, action, modifiers));
                }
                other => mouse.push(other),
            }
        }
        (keys, mouse)
    }

    /// Draws `lines` down from the top-left corner, then the status line in yellow.
    pub fn text(&mut self, lines: &[String]) {
        let font = self.font.clone();
        let window = self.display.window();
        for (i, line) in lines.iter().enumerate() {
            let y = 10.0 + 1.2 * TEXT_SIZE * i as f32;
            window.draw_text(line, Vec2::new(10.0, y), TEXT_SIZE, &font, WHITE);
        }
        if !self.status.is_empty() {
            let y = 10.0 + 1.2 * TEXT_SIZE * lines.len() as f32;
            window.draw_text(&self.status, Vec2::new(10.0, y), TEXT_SIZE, &font, YELLOW);
        }
    }

    /// Renders the 3D scene and counts the frame; `false` when the example should stop (the
    /// window was closed, or `--frames` ran out, after saving `--screenshot`).
    pub async fn present_3d(
        &mut self,
        scene: &mut SceneNode3d,
        camera: &mut impl Camera3d,
    ) -> bool {
        self.display.render_3d(scene, camera).await
            && self.frames.after_frame(&self.display, &self.options)
    }

    /// [`Stage::present_3d`] for a 2D scene.
    pub async fn present_2d(
        &mut self,
        scene: &mut SceneNode2d,
        camera: &mut impl Camera2d,
    ) -> bool {
        self.display.render_2d(scene, camera).await
            && self.frames.after_frame(&self.display, &self.options)
    }
}

/// What the simulation should do this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Advance {
    /// Paused, or the first off-screen frame (which shows the starting state).
    Nothing,
    /// One step: S while paused, or each off-screen frame after the first, so that pictures are
    /// reproducible.
    One,
    /// Real time: this many seconds passed since the last frame.
    Seconds(f32),
}

/// Space pauses and resumes, S steps once; off-screen, one step per frame.
#[derive(Debug)]
pub struct Pacing {
    /// Whether the simulation is paused.
    pub paused: bool,
    step_once: bool,
    last: std::time::Instant,
}

impl Default for Pacing {
    fn default() -> Self {
        Self {
            paused: false,
            step_once: false,
            last: std::time::Instant::now(),
        }
    }
}

impl Pacing {
    /// Takes Space and S; `false` for any other key.
    pub fn key(&mut self, key: Key, action: Action) -> bool {
        match (key, action) {
            (Key::Space, Action::Press) => self.paused = !self.paused,
            (Key::S, _) => self.step_once = true,
            _ => return false,
        }
        true
    }

    /// What to run this frame.
    pub fn advance(&mut self, stage: &Stage) -> Advance {
        let now = std::time::Instant::now();
        let elapsed = (now - self.last).as_secs_f32();
        self.last = now;
        let step_once = std::mem::take(&mut self.step_once);
        if stage.is_headless() {
            if stage.frame() > 0 {
                Advance::One
            } else {
                Advance::Nothing
            }
        } else if step_once {
            Advance::One
        } else if self.paused {
            Advance::Nothing
        } else {
            Advance::Seconds(elapsed)
        }
    }
}
