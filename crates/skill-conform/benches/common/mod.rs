//! Timing helpers both benchmarks use: a count from the environment, and medians after a warm-up.

use std::time::Duration;

/// `key` from the environment as a number, or `default`.
pub fn env_runs(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The middle sample (the upper one of an even count).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Runs `f` once to warm up, then `runs` times; the median of those.
pub fn time_runs(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    f();
    median((0..runs).map(|_| f()).collect())
}
