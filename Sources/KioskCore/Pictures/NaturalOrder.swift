/// The order people expect file names in (`order = "name"`): runs of digits
/// compare as numbers, so `IMG_2.jpg` comes before `IMG_10.jpg`; letters
/// compare without case, so `b.jpg` comes after `A.jpg`. Only ASCII letters
/// are folded and other bytes compare as UTF-8, so the order never depends
/// on the machine's locale. Names equal that way (`1.jpg` and `01.jpg`,
/// `a.jpg` and `A.jpg`) fall back to fewer leading zeros first, then byte
/// order: the order is total, the same on every machine and every run.
///
/// Paths compare folder by folder (``precedes(path:_:)``): everything in
/// `2024/` plays before `2024 summer/`, each folder in the same order.
public enum NaturalOrder {
    /// True when the name `a` comes before `b` (their bytes, UTF-8).
    public static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in precedes(a, b) } }
    }

    /// True when path `a` comes before path `b`: the first folder or file
    /// name where they differ decides, by ``precedes(_:_:)``; a path that
    /// ends first (a folder's own name) comes first.
    public static func precedes(path a: String, _ b: String) -> Bool {
        // Native strings lend their bytes without a copy; others (bridged) are copied.
        if let result = a.utf8.withContiguousStorageIfAvailable({ a in
            b.utf8.withContiguousStorageIfAvailable { b in precedes(path: a, b) }
        }), let result { return result }
        return precedes(path: Array(a.utf8), Array(b.utf8))
    }

    private static func precedes(path a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in precedes(path: a, b) } }
    }

    static func precedes(path a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/")
        // Paths in one folder share most of their bytes: skip what they
        // share, back to the start of the name where they differ (a number
        // may begin before the first byte that differs).
        var shared = 0
        let shorter = Swift.min(a.count, b.count)
        while shared < shorter && a[shared] == b[shared] { shared += 1 }
        if shared == a.count && shared == b.count { return false }
        while shared > 0 && a[shared - 1] != slash { shared -= 1 }
        var i = shared, j = shared
        while i < a.count && j < b.count {
            var endA = i, endB = j
            while endA < a.count && a[endA] != slash { endA += 1 }
            while endB < b.count && b[endB] != slash { endB += 1 }
            let partA = UnsafeBufferPointer(rebasing: a[i..<endA]), partB = UnsafeBufferPointer(rebasing: b[j..<endB])
            if !same(partA, partB) { return precedes(partA, partB) }
            i = endA + 1
            j = endB + 1
        }
        return a.count - i < b.count - j
    }

    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0, j = 0
        var zerosA = 0, zerosB = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                // Numbers: leading zeros aside, the longer is larger, else the first digit that differs decides.
                let startA = i, startB = j
                while i < a.count && a[i] == UInt8(ascii: "0") { i += 1 }
                while j < b.count && b[j] == UInt8(ascii: "0") { j += 1 }
                if zerosA == zerosB { zerosA = i - startA; zerosB = j - startB }
                let digitsA = i, digitsB = j
                while i < a.count && isDigit(a[i]) { i += 1 }
                while j < b.count && isDigit(b[j]) { j += 1 }
                if i - digitsA != j - digitsB { return i - digitsA < j - digitsB }
                for (x, y) in zip(a[digitsA..<i], b[digitsB..<j]) where x != y { return x < y }
            } else {
                let x = folded(a[i]), y = folded(b[j])
                if x != y { return x < y }
                i += 1
                j += 1
            }
        }
        if (a.count - i) != (b.count - j) { return a.count - i < b.count - j }
        if zerosA != zerosB { return zerosA < zerosB }
        return a.lexicographicallyPrecedes(b)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func folded(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
