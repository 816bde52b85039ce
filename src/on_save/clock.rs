//! The wall-clock time of a run's marker line, local, as HH:MM:SS.

/// The wall-clock time as HH:MM:SS, local (the time zone of `TZ`, else /etc/localtime, as
/// libc's `localtime_r` has it); empty when the system clock is out of any sane range.
pub(crate) fn clock() -> String {
    let Ok(now) = jiff::Timestamp::try_from(std::time::SystemTime::now()) else {
        return String::new();
    };
    let local = now.to_zoned_datetime(jiff::tz::TimeZone::system());
    format!("{:02}:{:02}:{:02}", local.hour(), local.minute(), local.second())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_reads_as_hours_minutes_and_seconds() {
        let text = super::clock();
        let parts: Vec<&str> = text.split(':').collect();
        assert_eq!(parts.len(), 3, "{text}");
        assert!(
            parts.iter().all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit())),
            "{text}"
        );
    }
}
