import ImageCodecs
import KioskCore
import KioskRendering

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

    init(settings: KioskSettings, panel: PixelSize) throws(ShowSetupError) {
        guard let images = settings.images else { throw .noImageFolder }
        let folder: ImageFolder
        do { layout = try ShowLayout(settings: settings, panel: panel) } catch { throw .setting(error) }
        do { folder = try ImageFolder(listing: images) } catch { throw .folder(error) }
        self.settings = settings
        self.panel = panel
        playlist = Playlist(folder.pictures)
        recipe = PictureRecipe(
            loader: PictureLoader(background: settings.layout.background, exifRotate: settings.exifRotate),
            slot: layout.geometry.slotSize)
        notes = layout.notes + folder.ignored + (folder.pictures.isEmpty ? [Self.emptyNote(settings)] : [])
    }

    /// The playlist with an empty cache of the layout's budget.
    func makePictures() -> DecodedPictures {
        DecodedPictures(playlist: playlist, slot: layout.geometry.slotSize, budget: layout.cacheBudget)
    }

    /// The show on `screen`, `index` in the centre, its decodes asked of `decoder`.
    func makeShow(on screen: any ShowScreen, decoder: any PictureDecoder, startAt index: Int, now: Double) -> RunningShow {
        RunningShow(assembly: self, screen: screen, decoder: decoder, startAt: index, now: now)
    }

    static func emptyNote(_ settings: KioskSettings) -> String {
        "no pictures to show in \(settings.images ?? "") (looking for .jpg, .jpeg and .png files): showing the background only"
    }
}

/// Why the show cannot start: a setting, or the picture folder.
public enum ShowSetupError: Error, CustomStringConvertible {
    case noImageFolder
    case setting(SettingError)
    case folder(ImageFileError)

    public var description: String {
        switch self {
        case .noImageFolder: return "no picture folder: pass --images DIR or set images in the config file"
        case .setting(let error): return error.description
        case .folder(let error): return "cannot read the picture folder \(error)"
        }
    }
}
