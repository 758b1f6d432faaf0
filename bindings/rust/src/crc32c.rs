//! CRC32C (Castagnoli, reflected polynomial 0x82F63B78), spec section 3.3.

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let mut c = b as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
            k += 1;
        }
        t[b] = c;
        b += 1;
    }
    t
}

static TABLE: [u32; 256] = make_table();

/// Continues a CRC32C: `crc32c(b, crc32c(a, 0)) == crc32c(a ++ b, 0)`.
pub fn crc32c(bytes: &[u8], crc: u32) -> u32 {
    let mut c = !crc;
    for &b in bytes {
        c = (c >> 8) ^ TABLE[((c ^ b as u32) & 0xFF) as usize];
    }
    !c
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::crc32c(b"123456789", 0), 0xE306_9283);
        assert_eq!(super::crc32c(b"6789", super::crc32c(b"12345", 0)), 0xE306_9283);
    }
}
