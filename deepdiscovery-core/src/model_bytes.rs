//! A cursor over a binary model file's bytes (the bridge's `bridge.bin`, the static
//! table's `static_table.bin`): every read is checked, none goes past the end.

/// A cursor over a model file's bytes.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// What the file is, for the error of a read past its end.
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `bytes`, a file of kind `what`.
    pub(crate) fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader { bytes, at: 0, what }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("{} truncated", self.what))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// The next little-endian u16.
    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// The next little-endian u32.
    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Whether every byte was read.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }
}
