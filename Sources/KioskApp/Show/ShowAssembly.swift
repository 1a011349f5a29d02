import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls

/// Settings and a panel, made into everything a show is built from: the
/// layout, the folder's playlist, how files become pictures, and the lines
/// an operator should read about them.
///
/// The one place a show is put together: the daemon (``DisplayJob``), the
/// snapshot, the benchmark and the tests all start here. A config reload
/// assembles again and hands the result to the running show
/// (``RunningShow/reassemble(_:at:)``), which keeps its place.
struct ShowAssembly {
    let settings: KioskSettings
    let panel: PixelSize
    let layout: ShowLayout
    let playlist: Playlist
    let recipe: PictureRecipe
    /// For the log: the layout's notes, files that are not shown, an empty folder.
    let notes: [String]

    /// `listing`: the folder as the daemon's ``FolderWatcher`` found it;
    /// without one the folder is listed here (a snapshot, the benchmark).
    init(settings: KioskSettings, panel: PixelSize, listing given: FolderListing? = nil) throws(ShowSetupError) {
        // A server's library alone needs no folder on the kiosk.
        guard settings.namesAnyLibrary else { throw .noImageFolder }
        let listing: FolderListing
        do { layout = try ShowLayout(settings: settings, panel: panel) } catch { throw .setting(error) }
        if let given { listing = given } else if let images = settings.images {
            do { listing = try FolderListing(folder: images, settings: settings.folder) } catch { throw .folder(error) }
        } else {
            listing = FolderListing(entries: [], notes: [])
        }
        self.settings = settings
        self.panel = panel
        playlist = Playlist(entries: listing.entries, sorted: true)
        let readsTitle = settings.text.caption?.fields.contains(.title) == true
        var loader = PictureLoader(
            background: settings.layout.background, exifRotate: settings.exifRotate, readsTitle: readsTitle, clips: settings.folder.clips)
        // With `video = false` no movie is decoded: motion photos show as stills.
        loader.readsMotion = settings.clips.motionPhotos != .off && settings.folder.clips
        recipe = PictureRecipe(
            loader: loader,
            slot: layout.geometry.slotSize, pairSpacing: settings.layout.portraitPairs ? layout.geometry.spacing : nil)
        let titlesMissing = readsTitle ? PhotoTitle.librariesMissing.map { "caption {title}: some titles cannot be read: \($0)" } : []
        notes = layout.notes + listing.notes + (listing.entries.isEmpty ? [Self.emptyNote(settings)] : []) + titlesMissing
    }

    /// The playlist with an empty cache of the layout's budget.
    func makePictures() -> DecodedPictures {
        DecodedPictures(playlist: playlist, slot: layout.geometry.slotSize, budget: layout.cacheBudget, pairing: pairing(keepingSizesOf: nil))
    }

    /// `portrait_pairs`: the strip's pairing for this layout, with the
    /// sizes `old` already read (a reload need not read them again); nil without pairs.
    func pairing(keepingSizesOf old: PairedStrip?) -> PairedStrip? {
        guard settings.layout.portraitPairs else { return nil }
        let geometry = layout.geometry
        return old?.resized(slot: geometry.slotSize, spacing: geometry.spacing) ?? PairedStrip(slot: geometry.slotSize, spacing: geometry.spacing)
    }

    /// The show on `screen`, `index` in the centre, its decodes asked of `decoder`.
    func makeShow(
        on screen: any ShowScreen, decoder: any PictureDecoder, texts: any TextDrawer = InlineTextDrawer(), startAt index: Int, now: Double
    ) -> RunningShow {
        RunningShow(assembly: self, screen: screen, decoder: decoder, texts: texts, startAt: index, now: now)
    }

    static func emptyNote(_ settings: KioskSettings) -> String {
        let places = [settings.images, settings.webdav.url.map { "the cache of \($0)" }, settings.immich.url.map { "the cache of \($0)" }].compactMap { $0 }.joined(separator: " or ")
        return "no pictures to show in \(places) (looking for \(PictureCodecs.spokenExtensions(joinedBy: "and")) files): showing the background only"
    }
}

/// Why the show cannot start: a setting, or the picture folder.
public enum ShowSetupError: Error, CustomStringConvertible {
    case noImageFolder
    case setting(SettingError)
    case folder(SystemCallError)

    public var description: String {
        switch self {
        case .noImageFolder: return "no picture folder: pass --images DIR, or set images (or [webdav] or [immich] url) in the config file"
        case .setting(let error): return error.description
        case .folder(let error): return "cannot read the picture folder \(error)"
        }
    }
}
