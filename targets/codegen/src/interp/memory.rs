//! Global memory (`addrspace(1)`): a flat, byte-addressed, little-endian
//! array starting at address 0. Pointers are 64-bit byte addresses into it;
//! every access is bounds-checked.

use crate::interp::fault::Fault;
use crate::ir::types::Type;
use crate::value::Value;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalMemory {
    bytes: Vec<u8>,
}

impl GlobalMemory {
    /// `size` zero bytes.
    pub fn new(size: usize) -> Self {
        GlobalMemory {
            bytes: vec![0; size],
        }
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        GlobalMemory { bytes }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn range(
        &self,
        addr: u64,
        len: u64,
        access: &'static str,
    ) -> Result<std::ops::Range<usize>, Fault> {
        let end = addr.checked_add(len);
        match end {
            Some(end) if end <= self.bytes.len() as u64 => Ok(addr as usize..end as usize),
            _ => Err(Fault::OutOfBounds {
                access,
                addr,
                len,
                size: self.bytes.len(),
            }),
        }
    }

    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<&[u8], Fault> {
        let r = self.range(addr, len, "read")?;
        Ok(&self.bytes[r])
    }

    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let r = self.range(addr, data.len() as u64, "write")?;
        self.bytes[r].copy_from_slice(data);
        Ok(())
    }

    /// A load of `ty` at `addr`. An `i1` occupies a byte holding 0 or 1;
    /// LLVM leaves the result undefined for any other byte, so that is an
    /// error here (the subset is poison-free).
    pub fn load(&self, ty: Type, addr: u64) -> Result<Value, Fault> {
        let r = self.range(addr, ty.store_size(), "load")?;
        if ty == Type::Int(1) && self.bytes[r.start] > 1 {
            return Err(Fault::BadBool {
                addr,
                byte: self.bytes[r.start],
            });
        }
        Value::from_le_bytes(ty, &self.bytes[r]).ok_or_else(|| Fault::Operands {
            op: "load".into(),
            detail: format!("cannot produce `{ty}`"),
        })
    }

    /// A store of `v` at `addr` (store-size bytes, little-endian).
    pub fn store(&mut self, v: &Value, addr: u64) -> Result<(), Fault> {
        let data = v.to_le_bytes();
        let r = self.range(addr, data.len() as u64, "store")?;
        self.bytes[r].copy_from_slice(&data);
        Ok(())
    }

    /// Grows the memory to at least `size` bytes (new bytes are zero).
    pub fn ensure_size(&mut self, size: usize) {
        if self.bytes.len() < size {
            self.bytes.resize(size, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_and_bounds() {
        let mut m = GlobalMemory::new(8);
        assert!(m.store(&Value::int(32, 0x0102_0304), 4).is_ok());
        assert_eq!(m.bytes()[4..], [4, 3, 2, 1]);
        assert_eq!(m.load(Type::Int(16), 4), Ok(Value::int(16, 0x0304)));
        assert!(m.load(Type::Int(64), 4).is_err());
        assert!(m.store(&Value::int(8, 1), u64::MAX).is_err());
        assert!(m.store(&Value::bool(true), 0).is_ok());
        assert_eq!(m.bytes()[0], 1);
        assert_eq!(m.load(Type::Int(1), 0), Ok(Value::bool(true)));
        assert!(m.load(Type::Int(1), 5).is_err());
    }
}
