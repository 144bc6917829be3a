//! The MPQ hash and cipher: one table of 0x500 words drives both the name hashes that index the hash
//! table and the stream cipher over tables, sector offset tables and sectors.

/// The 0x500-word table, built at compile time from the format's fixed seed.
static CRYPT_TABLE: [u32; 0x500] = build_crypt_table();

const fn build_crypt_table() -> [u32; 0x500] {
    let mut table = [0u32; 0x500];
    let mut seed: u32 = 0x0010_0001;
    let mut group = 0;
    while group < 0x100 {
        let mut slot = group;
        let mut round = 0;
        while round < 5 {
            seed = (seed * 125 + 3) % 0x2A_AAAB;
            let high = (seed & 0xFFFF) << 16;
            seed = (seed * 125 + 3) % 0x2A_AAAB;
            let low = seed & 0xFFFF;
            table[slot] = high | low;
            slot += 0x100;
            round += 1;
        }
        group += 1;
    }
    table
}

/// Which of the four hashes of a name: the hash table slot, the two check values, or the cipher key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashKind {
    TableOffset = 0,
    NameA = 1,
    NameB = 2,
    FileKey = 3,
}

/// The hash of a name, upper-cased and with `/` read as `\`, as the game stores names.
pub fn hash_name(name: &str, kind: HashKind) -> u32 {
    let mut seed1: u32 = 0x7FED_7FED;
    let mut seed2: u32 = 0xEEEE_EEEE;
    let base = (kind as usize) << 8;
    for &byte in name.as_bytes() {
        let ch = match byte {
            b'/' => b'\\',
            other => other.to_ascii_uppercase(),
        } as u32;
        seed1 = CRYPT_TABLE[base + ch as usize] ^ seed1.wrapping_add(seed2);
        seed2 = ch.wrapping_add(seed1).wrapping_add(seed2).wrapping_add(seed2 << 5).wrapping_add(3);
    }
    seed1
}

/// Decrypts whole little-endian words in place; a tail of fewer than four bytes is stored in the clear.
pub fn decrypt(data: &mut [u8], key: u32) {
    let mut seed1 = key;
    let mut seed2: u32 = 0xEEEE_EEEE;
    for word in data.chunks_exact_mut(4) {
        seed2 = seed2.wrapping_add(CRYPT_TABLE[0x400 + (seed1 & 0xFF) as usize]);
        let plain = u32::from_le_bytes([word[0], word[1], word[2], word[3]]) ^ seed1.wrapping_add(seed2);
        seed1 = ((!seed1) << 0x15).wrapping_add(0x1111_1111) | (seed1 >> 0x0B);
        seed2 = plain.wrapping_add(seed2).wrapping_add(seed2 << 5).wrapping_add(3);
        word.copy_from_slice(&plain.to_le_bytes());
    }
}

/// The key a file's data is encrypted with: the hash of its name without folders, adjusted by its
/// position and size when the block has the fix-key flag.
pub fn file_key(name: &str, position: u64, file_size: u32, fix_key: bool) -> u32 {
    let base_name = name.rsplit(['\\', '/']).next().unwrap_or(name);
    let key = hash_name(base_name, HashKind::FileKey);
    if fix_key { key.wrapping_add(position as u32) ^ file_size } else { key }
}

/// Recovers the key of a file whose name is unknown from its encrypted sector offset table, whose first
/// word is known: the table's own length. Each candidate low byte of the key fixes the rest of it; the
/// second word must then decrypt to an offset that follows the first.
pub fn recover_sector_table_key(first_two_words: [u32; 2], table_length: u32, compressed_size: u32) -> Option<u32> {
    for low_byte in 0..=0xFFu32 {
        let seed2 = 0xEEEE_EEEEu32.wrapping_add(CRYPT_TABLE[0x400 + low_byte as usize]);
        let key = (first_two_words[0] ^ table_length).wrapping_sub(seed2);
        if key & 0xFF != low_byte {
            continue;
        }
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&first_two_words[0].to_le_bytes());
        bytes[4..].copy_from_slice(&first_two_words[1].to_le_bytes());
        decrypt(&mut bytes, key);
        let first = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let second = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        if first == table_length && second >= first && second <= compressed_size {
            return Some(key);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_table_keys() {
        // The keys every MPQ tool documents for the two tables.
        assert_eq!(hash_name("(hash table)", HashKind::FileKey), 0xC3AF_3770);
        assert_eq!(hash_name("(block table)", HashKind::FileKey), 0xEC83_B3A3);
    }

    #[test]
    fn separators_and_case_hash_alike() {
        for kind in [HashKind::TableOffset, HashKind::NameA, HashKind::NameB] {
            assert_eq!(hash_name("World/Generic/barrel.m2", kind), hash_name("WORLD\\GENERIC\\BARREL.M2", kind));
        }
    }

    #[test]
    fn recovers_a_sector_table_key() {
        let key = 0x1234_5678u32;
        let mut table = Vec::new();
        for offset in [12u32, 100, 180] {
            table.extend_from_slice(&offset.to_le_bytes());
        }
        let mut encrypted = table.clone();
        // Encryption is the same walk with the plain word feeding the seed; emulate it by search.
        encrypt(&mut encrypted, key);
        let words = [
            u32::from_le_bytes(encrypted[0..4].try_into().unwrap()),
            u32::from_le_bytes(encrypted[4..8].try_into().unwrap()),
        ];
        assert_eq!(recover_sector_table_key(words, 12, 180), Some(key));
        decrypt(&mut encrypted, key);
        assert_eq!(encrypted, table);
    }

    fn encrypt(data: &mut [u8], key: u32) {
        let mut seed1 = key;
        let mut seed2: u32 = 0xEEEE_EEEE;
        for word in data.chunks_exact_mut(4) {
            seed2 = seed2.wrapping_add(CRYPT_TABLE[0x400 + (seed1 & 0xFF) as usize]);
            let plain = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let cipher = plain ^ seed1.wrapping_add(seed2);
            seed1 = ((!seed1) << 0x15).wrapping_add(0x1111_1111) | (seed1 >> 0x0B);
            seed2 = plain.wrapping_add(seed2).wrapping_add(seed2 << 5).wrapping_add(3);
            word.copy_from_slice(&cipher.to_le_bytes());
        }
    }
}
