//! The dtype registry, spec section 5. Ids are stable and never reused.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DType {
    pub id: u16,
    pub name: &'static str,
    /// Elements per storage block: 1 for plain types, 2 for i4/u4, 32 for q8_0/q4_0.
    pub block_elements: u64,
    pub block_bytes: u64,
    /// DLPack (code, bits), where DLPack has the type.
    pub dlpack: Option<(u8, u8)>,
}

const fn d(id: u16, name: &'static str, be: u64, bb: u64, dl: Option<(u8, u8)>) -> DType {
    DType { id, name, block_elements: be, block_bytes: bb, dlpack: dl }
}

pub static DTYPES: [DType; 23] = [
    d(1, "bool", 1, 1, Some((6, 8))),
    d(2, "i8", 1, 1, Some((0, 8))),
    d(3, "i16", 1, 2, Some((0, 16))),
    d(4, "i32", 1, 4, Some((0, 32))),
    d(5, "i64", 1, 8, Some((0, 64))),
    d(6, "u8", 1, 1, Some((1, 8))),
    d(7, "u16", 1, 2, Some((1, 16))),
    d(8, "u32", 1, 4, Some((1, 32))),
    d(9, "u64", 1, 8, Some((1, 64))),
    d(10, "f16", 1, 2, Some((2, 16))),
    d(11, "bf16", 1, 2, Some((4, 16))),
    d(12, "f32", 1, 4, Some((2, 32))),
    d(13, "f64", 1, 8, Some((2, 64))),
    d(14, "complex64", 1, 8, Some((5, 64))),
    d(15, "complex128", 1, 16, Some((5, 128))),
    d(16, "f8_e4m3fn", 1, 1, Some((10, 8))),
    d(17, "f8_e5m2", 1, 1, Some((12, 8))),
    d(18, "f8_e4m3fnuz", 1, 1, Some((11, 8))),
    d(19, "f8_e5m2fnuz", 1, 1, Some((13, 8))),
    d(20, "i4", 2, 1, Some((0, 4))),
    d(21, "u4", 2, 1, Some((1, 4))),
    d(22, "q8_0", 32, 34, None),
    d(23, "q4_0", 32, 18, None),
];

pub fn by_id(id: u16) -> Option<&'static DType> {
    DTYPES.iter().find(|t| t.id == id)
}

pub fn by_name(name: &str) -> Option<&'static DType> {
    DTYPES.iter().find(|t| t.name == name)
}

/// Why a shape has no byte length.
#[derive(Debug, PartialEq, Eq)]
pub enum SizeError {
    Overflow,
    /// Block dtypes need a last dimension that is a multiple of the block.
    PartialBlock,
}

/// Bytes a tensor of this dtype and shape occupies (spec 5.2), with checked arithmetic.
pub fn byte_length(t: &DType, shape: &[u64]) -> Result<u64, SizeError> {
    let mut n: u64 = 1;
    for &x in shape {
        n = n.checked_mul(x).ok_or(SizeError::Overflow)?;
    }
    match t.block_elements {
        1 => n.checked_mul(t.block_bytes).ok_or(SizeError::Overflow),
        2 => Ok(n / 2 + n % 2),
        be => {
            match shape.last() {
                Some(&last) if last % be == 0 => {}
                _ => return Err(SizeError::PartialBlock),
            }
            (n / be).checked_mul(t.block_bytes).ok_or(SizeError::Overflow)
        }
    }
}
