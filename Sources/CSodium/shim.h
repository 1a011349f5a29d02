// libsodium: Argon2id password hashes (crypto_pwhash_str), the random
// bytes of session tokens, and comparisons in constant time: kioskd-web's logins.
#include <sodium.h>
