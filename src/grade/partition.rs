//! `--partition K/N`: one shard of the sorted list of submissions, for a job of several.

use crate::error::{Error, FlagError};

/// `--partition K/N`: the K-th of N contiguous shards of the sorted list, sizes within one of
/// each other. Shards 1..N in order are the whole list in order, so their outputs concatenate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Partition {
    pub(crate) k: u64,
    pub(crate) n: u64,
}

impl Partition {
    pub(crate) fn parse(text: &str) -> Result<Partition, Error> {
        let bad = || Error::from(FlagError::PartitionNotShard { text: text.to_string() });
        let out_of_range =
            |most: u64| Error::from(FlagError::PartitionRange { text: text.to_string(), most });
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let number = |part: &str| -> Result<u64, Error> {
            let part = part.trim();
            match part.parse::<u64>() {
                Ok(value) => Ok(value),
                // All digits, but past what any machine could shard: out of range, not malformed.
                Err(_) if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => {
                    Err(out_of_range(4))
                }
                Err(_) => Err(bad()),
            }
        };
        let (k, n) = (number(k)?, number(n)?);
        if n == 0 || k == 0 || k > n {
            return Err(out_of_range(n.clamp(1, 9999)));
        }
        Ok(Partition { k, n })
    }

    /// The shard's slice of a list of `len`, worked out in 128 bits so no K/N overflows.
    pub(crate) fn range(self, len: usize) -> std::ops::Range<usize> {
        let at = |k: u64| {
            usize::try_from(len as u128 * u128::from(k) / u128::from(self.n)).unwrap_or(len)
        };
        at(self.k - 1)..at(self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_cover_the_list_in_order_and_differ_by_at_most_one() {
        for len in 0..40 {
            for n in 1..=9 {
                let ranges: Vec<_> = (1..=n).map(|k| Partition { k, n }.range(len)).collect();
                let joined: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
                assert_eq!(joined, (0..len).collect::<Vec<_>>(), "len {len}, n {n}");
                let sizes: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
                assert!(
                    sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
                    "{sizes:?}"
                );
            }
        }
    }

    #[test]
    fn partition_accepts_k_of_n_and_refuses_the_rest() {
        assert_eq!(Partition::parse("2/4").unwrap(), Partition { k: 2, n: 4 });
        assert_eq!(Partition::parse("1/1").unwrap(), Partition { k: 1, n: 1 });
        for bad in ["0/3", "4/3", "1/0", "0/0", "1/99999999999999999999", "18446744073709551616/2"]
        {
            assert!(
                Partition::parse(bad).unwrap_err().to_string().contains("out of range"),
                "{bad}"
            );
        }
        for bad in ["2", "a/b", "1/2/3", "-1/2", "", "/"] {
            assert!(Partition::parse(bad).unwrap_err().to_string().contains("is not K/N"), "{bad}");
        }
    }

    #[test]
    fn partition_arithmetic_cannot_overflow() {
        let huge = Partition { k: u64::MAX, n: u64::MAX };
        assert_eq!(huge.range(usize::MAX), usize::MAX - 1..usize::MAX);
        let first = Partition { k: 1, n: u64::MAX };
        assert_eq!(first.range(3), 0..0);
        assert_eq!(Partition { k: u64::MAX - 1, n: u64::MAX }.range(10), 9..9);
    }
}
