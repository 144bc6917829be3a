use std::fmt;

/// A four-character chunk id, always held in reading order (`MVER`, never the on-disk `REVM`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    pub const fn new(id: &[u8; 4]) -> Self {
        Self(*id)
    }

    /// A WMO id as stored: a little-endian u32 of the letters, so the bytes come reversed.
    pub const fn from_reversed(bytes: [u8; 4]) -> Self {
        Self([bytes[3], bytes[2], bytes[1], bytes[0]])
    }

    pub fn is_printable(&self) -> bool {
        self.0.iter().all(|b| (0x20..0x7F).contains(b))
    }

    /// The id as text when all four are printable ASCII (nearly every id), as [`fmt::Display`] writes it.
    pub fn as_printable(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok().filter(|_| self.is_printable())
    }

    /// Appends the id as [`fmt::Display`] writes it, a printable one letter by letter (without the
    /// formatter, or a check of the bytes as UTF-8, each a call).
    pub fn push_to(&self, text: &mut String) {
        if self.is_printable() {
            self.0.iter().for_each(|&b| text.push(char::from(b)));
        } else {
            text.push_str(&self.to_string());
        }
    }
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // In one piece where it can be: a chunk tree names thousands of forms in an LWO3 file, and
        // a formatted write per letter was a tenth of reading one.
        if let Some(text) = self.as_printable() {
            return f.write_str(text);
        }
        for &b in &self.0 {
            if (0x20..0x7F).contains(&b) {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02X}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCc({self})")
    }
}

impl serde::Serialize for FourCc {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
