//! The `.inc` writer's text sink: a small buffer that goes to an
//! `io::Write` each time it fills, or a whole string for callers that want
//! the text.
//!
//! AMDGPU's `GenRegisterInfo.inc` is 17 MB. Built as one string, every page
//! of it is faulted in (and zeroed by the kernel) only to be copied into
//! the page cache and dropped; written through a 64 KiB buffer, the same
//! few pages are reused. The writers never read back what they wrote, so
//! any prefix can leave at any time.

use std::fmt;
use std::io;

use crate::llvm_format::CHUNK;

/// Text going to a sink (or kept, see [`Out::string`]).
pub(crate) struct Out<'a> {
    /// Only ever UTF-8: whole `str`s and ASCII digits go in.
    buf: Vec<u8>,
    sink: Option<&'a mut dyn io::Write>,
    /// The first write error; later text is dropped.
    error: Option<io::Error>,
}

impl<'a> Out<'a> {
    /// Text written to `sink` a chunk at a time.
    pub fn to_writer(sink: &'a mut dyn io::Write) -> Out<'a> {
        Out {
            buf: Vec::with_capacity(CHUNK + 4096),
            sink: Some(sink),
            error: None,
        }
    }

    /// Text kept whole, with room for `capacity` bytes up front.
    pub fn string(capacity: usize) -> Out<'static> {
        Out {
            buf: Vec::with_capacity(capacity),
            sink: None,
            error: None,
        }
    }

    #[inline]
    pub fn push_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
        if self.buf.len() >= CHUNK {
            self.drain();
        }
    }

    #[inline]
    pub fn push(&mut self, c: char) {
        let mut utf8 = [0u8; 4];
        self.buf
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        if self.buf.len() >= CHUNK {
            self.drain();
        }
    }

    /// An unsigned number in decimal, as `{}` prints it, without the
    /// formatting machinery (the tables print hundreds of thousands).
    #[inline]
    pub fn num(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.bytes(&digits[i..]);
    }

    /// A signed number in decimal, as `{}` prints it.
    #[inline]
    pub fn int(&mut self, v: i64) {
        if v < 0 {
            self.push('-');
        }
        self.num(v.unsigned_abs());
    }

    /// `v` in hexadecimal with at least `digits` digits, as `{v:0digits$x}`
    /// prints it (`X` when `upper`).
    #[inline]
    pub fn hex(&mut self, mut v: u64, digits: usize, upper: bool) {
        let table = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let mut buf = [0u8; 16];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = table[(v & 15) as usize];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        for _ in buf.len() - i..digits {
            self.buf.push(b'0');
        }
        self.bytes(&buf[i..]);
    }

    /// ASCII bytes (digits).
    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        debug_assert!(b.is_ascii());
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.drain();
        }
    }

    /// Hands the buffer to the sink (nothing when the text is kept whole).
    fn drain(&mut self) {
        let Some(sink) = self.sink.as_deref_mut() else {
            return;
        };
        if self.error.is_none() {
            if let Err(e) = sink.write_all(&self.buf) {
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }

    /// Writes what is left and flushes the sink: the first write error, if
    /// any.
    pub fn finish(mut self) -> io::Result<()> {
        self.drain();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.sink.as_deref_mut() {
            Some(sink) => sink.flush(),
            None => Ok(()),
        }
    }

    /// Text another [`Out::string`] made ([`Out::into_bytes`]), handed to
    /// the sink as it is (no copy into the buffer).
    pub fn push_made(&mut self, text: &[u8]) {
        if self.sink.is_none() {
            self.buf.extend_from_slice(text);
            return;
        }
        self.drain();
        if let (Some(sink), None) = (self.sink.as_deref_mut(), &self.error) {
            if let Err(e) = sink.write_all(text) {
                self.error = Some(e);
            }
        }
    }

    /// The text of an [`Out::string`], as bytes (UTF-8).
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The whole text of an [`Out::string`].
    pub fn into_string(self) -> String {
        String::from_utf8(self.buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

impl fmt::Write for Out<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn chunks_reach_the_sink_in_order() {
        let mut sink = Vec::new();
        let mut o = Out::to_writer(&mut sink);
        let mut want = String::new();
        for i in 0..40_000u64 {
            o.num(i);
            let _ = write!(o, ",{i}");
            o.push('\n');
            let _ = writeln!(want, "{i},{i}");
        }
        o.num(u64::MAX);
        let _ = write!(want, "{}", u64::MAX);
        for v in [0i64, -1, 17, i64::MIN, i64::MAX] {
            o.int(v);
            let _ = write!(want, "{v}");
        }
        for (v, d) in [
            (0u64, 2),
            (0xab, 2),
            (0x5, 8),
            (u64::MAX, 16),
            (0x1234, 1),
            (0, 0),
        ] {
            o.hex(v, d, false);
            o.hex(v, d, true);
            let _ = write!(want, "{v:0d$x}{v:0d$X}");
        }
        o.finish().unwrap();
        assert_eq!(String::from_utf8(sink).unwrap(), want);
    }

    #[test]
    fn made_text_follows_what_was_written() {
        let mut made = Out::string(0);
        made.push_str("made ");
        made.num(42);
        let made = made.into_bytes();
        let mut sink = Vec::new();
        let mut o = Out::to_writer(&mut sink);
        o.push_str("first, ");
        o.push_made(&made);
        o.push_str(", last");
        o.finish().unwrap();
        assert_eq!(sink, b"first, made 42, last");
        let mut kept = Out::string(0);
        kept.push_str("a");
        kept.push_made(b"b");
        assert_eq!(kept.into_string(), "ab");
    }

    #[test]
    fn a_failing_sink_reports_its_error() {
        struct Full;
        impl io::Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut full = Full;
        let mut o = Out::to_writer(&mut full);
        o.push_str(&"x".repeat(CHUNK + 1));
        assert_eq!(o.finish().unwrap_err().to_string(), "disk full");
    }
}
