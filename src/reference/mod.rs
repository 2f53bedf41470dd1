//! The test oracle: the solver's formulas written a second time, plainly, from the papers, and a
//! plain substep loop that applies them in the library's constraint order.
//!
//! Nothing here calls the library's kernels or math helpers (src/constraints, src/collision,
//! src/solver): each constraint is a short function with its paper and equation, evaluated in f64
//! on glam's `DVec3`, so that a difference from the library is the library's f32 rounding or a
//! different formula, never a shared mistake. Everything the oracle needs to know about the
//! library (its constraints in storage and colour order, its settings, its state, its sweeps and
//! its step) is read or called in one place, [`adapter`].
//!
//! - [`distance`]: XPBD distance projection with compliance and damping (XPBD eq. 18, 26).
//! - [`dihedral`]: signed dihedral angle, its gradient (Bridson et al. 2003 §4), its projection.
//! - [`tether`]: long-range attachment inequality (Kim, Chentanez & Müller 2012).
//! - [`contact`]: sphere contact with static and kinetic friction (Macklin et al. 2014 §6).
//! - [`motion`]: the substep's prediction and velocity update with linear damping.
//! - [`substep`]: the reference loop over a whole cloth (Small Steps, Macklin et al. 2019).
//! - [`scenes`]: the validation scenes, built through the public API.

pub(crate) mod adapter;
pub(crate) mod contact;
pub(crate) mod dihedral;
pub(crate) mod distance;
pub(crate) mod motion;
pub(crate) mod scenes;
pub(crate) mod substep;
pub(crate) mod tether;
pub(crate) mod xpbd;

mod formula_tests;
mod projection_tests;
mod scene_tests;

pub(crate) use xpbd::Compliance;
