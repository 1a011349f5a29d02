import KioskCore
import SystemCalls

/// A place the show's pictures come from, given to the show rather than
/// built into it: it lists its pictures under ids that begin with its
/// ``scope``, and hands the show what changed (``FolderNews``) through a
/// descriptor the run loop polls, doing its own work (walking a folder,
/// asking a server) off the loop. The picture folder (``FolderWatcher``) is
/// the first; the show treats every library alike (``LibrarySource``):
/// a library's `listing` replaces its own pictures only, and when it goes
/// (`folderGone`) only its pictures leave.
protocol PictureLibrary: AnyObject {
    var kind: LibraryKind { get }
    /// Where, for the log and `status`: the folder's path, or a server's address without credentials.
    var source: String { get }
    /// The beginning of every id it gives (``LibraryStatus/scope``).
    var scope: String { get }
    /// What it listed while it was made; nil when it could not be read then
    /// (the show starts without its pictures, and it says when it is back).
    var firstListing: [PlaylistEntry]? { get }
    /// Entries it does not show, for the log.
    var firstNotes: [String] { get }
    /// Poll this for readability: news is waiting (``take()``).
    var readyFD: Int32 { get }
    /// The news since the last call. Never waits.
    func take() -> [FolderNews]
    /// Asks its thread to end.
    func stop()
    /// A server's: poll this for readability when its state or counts
    /// changed (``takeReport()``). Nil for a folder, whose state follows its news.
    var reportFD: Int32? { get }
    /// Its state and counts as they are now, if they changed since the last call. Never waits.
    func takeReport() -> LibraryReport?
}

extension FolderWatcher: PictureLibrary {
    var kind: LibraryKind { .folder }
    var source: String { root }
    var scope: String { LibraryStatus.scope(ofFolder: root) }
    var reportFD: Int32? { nil }
    func takeReport() -> LibraryReport? { nil }
}

/// The libraries the settings name, made (and first listed) in their order.
/// The picture folder, `images`, and the servers, `[webdav]` and
/// `[immich]`, each feeding the same show.
enum PictureLibraries {
    /// Makes them; throws what stops the first that cannot be made (a
    /// folder that exists but cannot be read), after stopping those made.
    static func make(for settings: KioskSettings, panel: PixelSize? = nil) throws(SystemCallError) -> [any PictureLibrary] {
        var made: [any PictureLibrary] = []
        do {
            if let images = settings.images { made.append(try FolderWatcher(root: images, settings: settings.folder)) }
            if let webdav = try ServerLibrary.webDAV(for: settings) { made.append(webdav) }
            if let immich = try ServerLibrary.immich(for: settings, panel: panel) { made.append(immich) }
        } catch {
            made.forEach { $0.stop() }
            throw error
        }
        return made
    }

    /// Their first listings together, in the show's order, and their notes
    /// (empty for a library that could not be read then).
    static func firstListing(of libraries: [any PictureLibrary]) -> FolderListing {
        let listed = libraries.compactMap(\.firstListing)
        let notes = libraries.flatMap(\.firstNotes)
        // One library's listing is sorted already (and pairs its Live Photos): taken as it is.
        if listed.count <= 1 { return FolderListing(entries: listed.first ?? [], notes: notes) }
        return FolderListing(entries: listed.joined().sorted(by: PlaylistEntry.precedes), notes: notes)
    }
}
