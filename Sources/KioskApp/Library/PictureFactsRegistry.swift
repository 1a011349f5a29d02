import KioskCore
import Synchronization

/// The facts servers give about the pictures in their mirrors
/// (``PictureFacts``), by the mirror's folder, for the captions: a server
/// library publishes its own (``ServerLibrary``), and the caption of a
/// picture under that folder reads them (``CaptionFacts``) by a lookup in
/// memory, never a file, so the run loop can ask.
///
/// One registry in the process: a reload makes a new library for the same
/// folder before the old one stops, so each publication has an owner, and
/// an owner withdraws only its own.
enum PictureFactsRegistry {
    private struct Published {
        var owner: ObjectIdentifier
        var facts: [String: PictureFacts]
    }

    private static let published = Mutex<[String: Published]>([:])

    /// `facts` by path relative to `root` (a mirror's folder), from `owner`, in place of what was there.
    static func publish(_ facts: [String: PictureFacts], under root: String, by owner: AnyObject) {
        published.withLock { $0[root] = Published(owner: ObjectIdentifier(owner), facts: facts) }
    }

    /// Withdraws `owner`'s facts under `root`, unless another owner has published there since.
    static func withdraw(under root: String, by owner: AnyObject) {
        published.withLock { if $0[root]?.owner == ObjectIdentifier(owner) { $0[root] = nil } }
    }

    /// The facts of the picture at `path`, if a server gave any.
    static func facts(of path: String) -> PictureFacts? {
        let bytes = path.utf8
        return published.withLock { all in
            for (root, published) in all {
                let prefix = root.utf8
                guard bytes.count > prefix.count + 1, bytes.starts(with: prefix),
                      bytes[bytes.index(bytes.startIndex, offsetBy: prefix.count)] == UInt8(ascii: "/") else { continue }
                return published.facts[String(Substring(bytes.dropFirst(prefix.count + 1)))]
            }
            return nil
        }
    }
}
