import ImageCodecs
import KioskCore
import KioskRendering

/// The show's playlist and the pictures decoded for it so far.
///
/// Decodes only what is visible. A file that fails is dropped from the
/// playlist with one log line (as if it were not there), which can bring
/// another file into view, so loading repeats until every visible slot has
/// its picture; each round drops at least one file.
struct ShowPictures {
    private(set) var playlist: [String]
    private(set) var log: [String] = []
    private var decoded: [String: RasterImage] = [:]
    private let loader: PictureLoader

    init(folder: ImageFolder, background: RGBColor, exifRotate: Bool) {
        playlist = folder.pictures
        log = folder.ignored
        loader = PictureLoader(background: background, exifRotate: exifRotate)
    }

    var index: CircularIndex { CircularIndex(count: playlist.count) }

    func picture(_ item: Int) -> RasterImage? { decoded[playlist[item]] }

    mutating func loadVisible(_ geometry: CarouselGeometry, at position: Double) {
        while true {
            let index = self.index
            let visible = Set(geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index) })
            var failed: Set<Int> = []
            for item in visible.sorted() where decoded[playlist[item]] == nil {
                do {
                    decoded[playlist[item]] = try loader.load(playlist[item], fittedTo: geometry.slotSize)
                } catch {
                    log.append("skipping \(error)")
                    failed.insert(item)
                }
            }
            if failed.isEmpty { return }
            playlist = playlist.enumerated().filter { !failed.contains($0.offset) }.map(\.element)
        }
    }
}

/// The layout for a panel, with the log lines an operator should see about it.
struct ShowLayout {
    let geometry: CarouselGeometry
    let renderer: FrameRenderer
    let notes: [String]

    init(settings: KioskSettings, panel: PixelSize) throws(SettingError) {
        let logical = settings.display.rotation.logicalSize(of: panel)
        geometry = try CarouselGeometry(screen: logical, settings: settings.layout)
        renderer = FrameRenderer(
            compositor: StripCompositor(geometry: geometry, background: settings.layout.background),
            rotation: settings.display.rotation)
        notes = geometry.neighboursHiddenAtRest
            ? ["image_width \(geometry.slotWidth) px and spacing \(geometry.spacing) px leave no room for the "
                + "neighbours on a \(logical.width) px screen: only the centred picture shows at rest"]
            : []
    }
}
