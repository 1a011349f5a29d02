/// The known name an operator most likely meant by a name that is not one:
/// the one fewest edits away (a letter added, dropped or changed, or two
/// neighbours swapped), if it is close enough to be a typo (at most a third
/// of the name's letters, and at most 3). Ties go to the first in `known`.
public func closestName(to name: String, among known: [String]) -> String? {
    let typed = Array(name.lowercased().utf8)
    let limit = min(3, max(1, typed.count / 3))
    var best: (name: String, distance: Int)?
    for candidate in known {
        let distance = editDistance(typed, Array(candidate.utf8))
        if distance <= limit && distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
}

/// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of
/// two neighbours (optimal string alignment), each counting one.
func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = min(current[j], before[j - 2] + 1)
            }
        }
        (before, previous, current) = (previous, current, before)
    }
    return previous[b.count]
}
