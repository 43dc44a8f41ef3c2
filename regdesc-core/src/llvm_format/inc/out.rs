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
    buf: String,
    sink: Option<&'a mut dyn io::Write>,
    /// The first write error; later text is dropped.
    error: Option<io::Error>,
}

impl<'a> Out<'a> {
    /// Text written to `sink` a chunk at a time.
    pub fn to_writer(sink: &'a mut dyn io::Write) -> Out<'a> {
        Out {
            buf: String::with_capacity(CHUNK + 4096),
            sink: Some(sink),
            error: None,
        }
    }

    /// Text kept whole, with room for `capacity` bytes up front.
    pub fn string(capacity: usize) -> Out<'static> {
        Out {
            buf: String::with_capacity(capacity),
            sink: None,
            error: None,
        }
    }

    #[inline]
    pub fn push_str(&mut self, s: &str) {
        self.buf.push_str(s);
        if self.buf.len() >= CHUNK {
            self.drain();
        }
    }

    #[inline]
    pub fn push(&mut self, c: char) {
        self.buf.push(c);
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
        // Only ASCII digits.
        self.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
    }

    /// Hands the buffer to the sink (nothing when the text is kept whole).
    fn drain(&mut self) {
        let Some(sink) = self.sink.as_deref_mut() else {
            return;
        };
        if self.error.is_none() {
            if let Err(e) = sink.write_all(self.buf.as_bytes()) {
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

    /// The whole text of an [`Out::string`].
    pub fn into_string(self) -> String {
        self.buf
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
        o.finish().unwrap();
        assert_eq!(String::from_utf8(sink).unwrap(), want);
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
