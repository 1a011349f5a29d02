import KioskCore
import Testing

@Suite struct NaturalOrderTests {
    func sorted(_ names: [String]) -> [String] {
        names.map { Array($0.utf8) }.sorted(by: NaturalOrder.precedes).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func numbersCompareAsNumbersAndLettersWithoutCase() {
        #expect(sorted(["IMG_10.jpg", "IMG_2.jpg", "IMG_1.jpg", "img_3.JPG"]) == ["IMG_1.jpg", "IMG_2.jpg", "img_3.JPG", "IMG_10.jpg"])
        #expect(sorted(["b.jpg", "A.jpg", "a.jpg", "C.jpg"]) == ["A.jpg", "a.jpg", "b.jpg", "C.jpg"])
        #expect(sorted(["2024-12-1.jpg", "2024-2-10.jpg", "2024-2-9.jpg"]) == ["2024-2-9.jpg", "2024-2-10.jpg", "2024-12-1.jpg"])
        // Leading zeros: the number decides; on a tie, fewer zeros first.
        #expect(sorted(["010.jpg", "9.jpg", "10.jpg", "0010.jpg", "011.jpg"]) == ["9.jpg", "10.jpg", "010.jpg", "0010.jpg", "011.jpg"])
        // Numbers longer than any integer type still compare.
        #expect(sorted(["123456789012345678901234567891.jpg", "123456789012345678901234567890.jpg"])
                == ["123456789012345678901234567890.jpg", "123456789012345678901234567891.jpg"])
        // A name that is the start of another comes first; digits before letters, as in ASCII.
        #expect(sorted(["photo.jpg", "photo", "photo 2.jpg", "photo2.jpg"]) == ["photo", "photo 2.jpg", "photo.jpg", "photo2.jpg"])
    }

    /// A sort needs a strict order: never a before itself, never both ways,
    /// and transitive; over random names of digits, letters in both cases
    /// and separators, and every pair of distinct names is ordered.
    @Test func itIsAStrictTotalOrder() {
        var random: UInt64 = 42
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        let alphabet = Array("0019aAbB_.-".utf8) + [0xC3, 0xA9]  // é's two bytes, apart or together
        let names = (0..<120).map { _ in (0..<next(7)).map { _ in alphabet[next(alphabet.count)] } }
        for a in names {
            #expect(!NaturalOrder.precedes(a, a))
            for b in names where a != b {
                #expect(NaturalOrder.precedes(a, b) != NaturalOrder.precedes(b, a), "\(a) \(b)")
            }
        }
        for _ in 0..<20_000 {
            let (a, b, c) = (names[next(names.count)], names[next(names.count)], names[next(names.count)])
            if NaturalOrder.precedes(a, b) && NaturalOrder.precedes(b, c) { #expect(NaturalOrder.precedes(a, c), "\(a) \(b) \(c)") }
        }
    }
}

@Suite struct NaturalPathOrderTests {
    /// Subfolders play in the same order as files, folder by folder: all of
    /// `2024/` before `2024 summer/`, and `trip 2/` before `trip 10/`.
    @Test func pathsCompareFolderByFolder() {
        let paths = ["/p/trip 10/a.jpg", "/p/2024 summer/a.jpg", "/p/trip 2/b.jpg", "/p/2024/z.jpg", "/p/2024.jpg", "/p/trip 2/A1.jpg"]
        #expect(paths.sorted { NaturalOrder.precedes(path: $0, $1) } == [
            "/p/2024/z.jpg", "/p/2024 summer/a.jpg", "/p/2024.jpg", "/p/trip 2/A1.jpg", "/p/trip 2/b.jpg", "/p/trip 10/a.jpg",
        ])
        #expect(!NaturalOrder.precedes(path: "/p/a.jpg", "/p/a.jpg"))
    }
}
