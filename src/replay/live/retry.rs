//! When a failed request to the Messages API is tried again, and after how long: the rules of
//! the official Python SDK (anthropic 2.14.0, `_base_client.py`), kept as pure functions so the
//! policy is tested apart from the network.
//!
//! - At most 2 retries (3 attempts in all).
//! - `x-should-retry: true|false` from the server wins over everything else.
//! - Otherwise 408, 409, 429 and every status from 500 up (529 "overloaded" included) are
//!   retried; connection failures and timeouts are too. Other statuses are final.
//! - The wait is what the server asks for (`retry-after-ms`, then `retry-after` in seconds or as
//!   an HTTP date) when that is above zero; else 0.5 s doubled per retry, at most 8 s, times a
//!   jitter factor between 0.75 and 1.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) const MAX_RETRIES: u32 = 2;
const INITIAL_DELAY: f64 = 0.5;
const MAX_DELAY: f64 = 8.0;

/// The longest wait a server may ask for before we stop instead of sleeping: a command that
/// sits silent for minutes looks hung. The SDK has no such bound; this tool is interactive.
pub(crate) const MAX_SERVER_WAIT: Duration = Duration::from_secs(60);

/// Whether a response with this status (and `x-should-retry` header, if any) is worth another try.
pub(crate) fn should_retry(status: u16, x_should_retry: Option<&str>) -> bool {
    match x_should_retry {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The wait the server asked for, if it asked: `retry-after-ms` first, then `retry-after`.
pub(crate) fn server_wait(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs_f64();
    seconds(at as f64 - now)
}

/// A positive, finite number of seconds as a duration; anything else is "no wait asked for".
fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs.min(4_294_967.0)))
}

/// The wait before retry number `retries_taken + 1`. `jitter` is uniform in [0, 1).
pub(crate) fn delay(retries_taken: u32, server: Option<Duration>, jitter: f64) -> Duration {
    if let Some(wait) = server {
        return wait;
    }
    let base = (INITIAL_DELAY * 2f64.powi(retries_taken.min(1000) as i32)).min(MAX_DELAY);
    Duration::from_secs_f64((base * (1.0 - 0.25 * jitter.clamp(0.0, 1.0))).max(0.0))
}

/// Seconds since the epoch of an HTTP date in its fixed form: `Sun, 06 Nov 1994 08:49:37 GMT`.
fn http_date(text: &str) -> Option<i64> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else { return None };
    let months =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = months.iter().position(|m| m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else { return None };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// A small, non-cryptographic source of jitter, seeded from the clock and the process id.
pub(crate) struct Jitter(u64);

impl Default for Jitter {
    fn default() -> Jitter {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        Jitter(nanos ^ ((std::process::id() as u64) << 32) | 1)
    }
}

impl Jitter {
    /// The next value, uniform in [0, 1) (xorshift64*).
    pub(crate) fn draw(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_what_the_sdk_retries() {
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(should_retry(status, None), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422] {
            assert!(!should_retry(status, None), "{status}");
        }
        assert!(should_retry(400, Some("true")));
        assert!(!should_retry(529, Some("false")));
    }

    #[test]
    fn honours_the_servers_wait() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_767); // Sun, 06 Nov 1994 08:49:27 GMT
        assert_eq!(server_wait(Some("250"), Some("9"), now), Some(Duration::from_millis(250)));
        assert_eq!(server_wait(None, Some("2"), now), Some(Duration::from_secs(2)));
        assert_eq!(server_wait(None, Some("1.5"), now), Some(Duration::from_millis(1500)));
        assert_eq!(server_wait(Some("soon"), Some("3"), now), Some(Duration::from_secs(3)));
        assert_eq!(
            server_wait(None, Some("Sun, 06 Nov 1994 08:49:37 GMT"), now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(server_wait(None, Some("0"), now), None);
        assert_eq!(server_wait(None, Some("-1"), now), None);
        assert_eq!(server_wait(None, None, now), None);
    }

    #[test]
    fn backs_off_exponentially_with_jitter_and_a_ceiling() {
        assert_eq!(delay(0, None, 0.0), Duration::from_millis(500));
        assert_eq!(delay(1, None, 0.0), Duration::from_secs(1));
        assert_eq!(delay(2, None, 0.999_999).as_millis(), 1500);
        assert_eq!(delay(10, None, 0.0), Duration::from_secs(8));
        assert_eq!(delay(0, Some(Duration::from_secs(3)), 0.5), Duration::from_secs(3));
        let mut jitter = Jitter::default();
        for _ in 0..1000 {
            let j = jitter.draw();
            assert!((0.0..1.0).contains(&j));
        }
    }
}
