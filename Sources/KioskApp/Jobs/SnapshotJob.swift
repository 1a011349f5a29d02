import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform

/// One frame of the show, rendered offscreen: what `kioskd snapshot` writes
/// and what the display scans out for the same state (including rotation:
/// the PNG is the panel's own pixels).
public struct SnapshotJob: Sendable {
    public var settings: KioskSettings
    /// The panel's size as scanned out (before rotation).
    public var screen: PixelSize
    /// The strip position `p`, in images (slot `p` is centred when whole).
    public var position: Double
    /// The frame animated pictures show, counted across plays as the show
    /// counts them (0, the first, is what a still shows): for the pictures
    /// that play at `position`, those at least half on screen; for a video
    /// clip or a motion photo, the one resting in the centre (where the show plays them).
    public var frame: Int
    /// When set, the strip rests on the slot that shows this playlist item
    /// (any integer; it wraps): ``position`` itself with one file per slot,
    /// the slot of its pair with `portrait_pairs`.
    public var centredItem: Int?
    /// The centred picture zoomed (`--zoom`, from 1 to `max_zoom`), with
    /// its point ``focus`` (each 0...1 of its width and height) in the
    /// middle of its slot as far as its edges allow. The zoomed part is
    /// decoded again from the file at the screen's resolution, as the show does.
    public var zoom = 1.0
    public var focus = (x: 0.5, y: 0.5)
    /// A message shown as `kioskctl message` shows it.
    public var message: String?
    /// The wall-clock time the clock shows (seconds since the epoch); now when nil.
    public var time: Double?

    public init(settings: KioskSettings, screen: PixelSize, position: Double, frame: Int = 0) {
        self.settings = settings
        self.screen = screen
        self.position = position
        self.frame = frame
    }

    /// The frame and the log lines an operator should see (skipped files,
    /// an empty folder, a layout with no room for neighbours).
    public struct Result: Sendable {
        public let frame: RasterImage
        public let log: [String]
        /// The pictures that ended up in the playlist, in playing order.
        public let playlist: [String]
        /// The strip position drawn (``centredItem``'s slot, when given).
        public var position: Double = 0
    }

    public func run() throws(ShowSetupError) -> Result {
        guard position.isFinite else {
            throw .setting(SettingError(setting: "position", value: "\(position)", reason: "must be a finite number"))
        }
        let assembly = try ShowAssembly(settings: settings, panel: screen)
        let layout = assembly.layout
        var pictures = assembly.makePictures()
        pictures.measureAll(with: assembly.recipe)
        let position = centredItem.map { Double(pictures.stripSlot(ofItemSlot: $0)) } ?? self.position
        // Only what is on screen: a snapshot has no "next" to prepare.
        let onScreen = PreloadPlan(ahead: 0, behind: 0)
        let refused = pictures.loadNow(
            { onScreen.items(layout.geometry, at: position, travelling: .forward, playlist: $0) }, with: assembly.recipe)
        var log = assembly.notes + refused.map { "skipping \($0)" }
        if pictures.playlist.isEmpty && !assembly.playlist.isEmpty { log.append(ShowAssembly.emptyNote(settings)) }

        // Animations' frames by file, and the centred picture zoomed.
        var frames: [String: RasterImage] = [:]
        if frame > 0 {
            for slot in layout.geometry.slotsHalfVisible(at: position) {
                guard let unit = pictures.index.item(forSlot: slot.index), let file = pictures.key(unit).file,
                      let schedule = pictures.animation(of: pictures.key(unit)) else { continue }
                // After counted plays the last frame stays.
                let number = min(frame, FramePlayback(schedule: schedule, startedAt: 0).lastFrame ?? frame)
                do {
                    let animation = try assembly.recipe.loader.openAnimation(file, fittedTo: assembly.recipe.slot)
                    for _ in 0..<number { try animation.advance() }
                    frames[file] = try animation.decodeNext()
                } catch {
                    log.append("\(error): showing its first frame")
                }
            }
        }
        if frame > 0, position == position.rounded(), let unit = pictures.index.item(forSlot: Int(position)),
           let movie = pictures.movie(of: pictures.key(unit), motionPhotos: settings.clips.motionPhotos), let file = pictures.key(unit).file {
            do {
                if let shown = try clipFrame(movie, assembly: assembly) { frames[file] = shown }
            } catch {
                log.append("\(error): showing its first frame")
            }
        }
        let zoomed = zoom > 1 ? zoomedView(pictures, assembly: assembly, at: position, log: &log) : nil
        let texts = words(on: pictures, layout: layout, at: position)
        log += texts.notes
        var image = RasterImage(size: screen, filledWith: settings.layout.background)
        image.withSurface { surface in
            var contents = BufferContents()
            layout.renderer.draw(
                into: surface, position: position, playlist: pictures.index, overlays: texts.shown.overlays(),
                caption: { texts.shown.caption(for: pictures.key($0)) }, contents: &contents
            ) {
                pictureShown(forUnit: $0, in: pictures, zoomed: zoomed) { frames[$0] }
            }
        }
        return Result(frame: image, log: log, playlist: pictures.playlist.files, position: position)
    }

    /// Frame ``frame`` of the clip (or motion photo's movie) resting in the
    /// centre, as the show plays it: counted across plays when it loops;
    /// past its end a clip keeps its last frame and a motion photo played
    /// `once` shows its still again (nil).
    private func clipFrame(_ movie: (source: ClipSource, isMotion: Bool), assembly: ShowAssembly) throws(ImageFileError) -> RasterImage? {
        let repeats = movie.isMotion ? settings.clips.motionPhotos.repeats : settings.clips.repeats
        let player = try ClipPlayer(
            path: movie.source.path, range: movie.source.range, fittedTo: assembly.recipe.slot, options: assembly.recipe.loader.options,
            loops: repeats == .loop, threads: 1)
        var shown: RasterImage?
        while player.frames <= frame {
            guard case .frame(let next) = try player.next() else { return movie.isMotion ? nil : shown }
            shown = next.picture
        }
        return shown
    }

    /// The captions of the pictures on screen, the clock at ``time`` and the
    /// message, drawn in line as the show's worker draws them; and their notes.
    private func words(on pictures: DecodedPictures, layout: ShowLayout, at position: Double) -> (shown: ScreenTexts, notes: [String]) {
        let time = self.time ?? WallClockTimer.preciseNow()
        let texts = ScreenTexts(
            settings: layout.text, screen: layout.geometry.screen, rotation: layout.renderer.rotation, drawer: InlineTextDrawer(),
            wallClock: { time })
        var notes: [String] = []
        texts.note = { notes.append($0) }
        if layout.text.caption != nil {
            for slot in layout.geometry.visibleSlots(at: position) {
                guard let unit = pictures.index.item(forSlot: slot.index), let picture = pictures.picture(unit) else { continue }
                let key = pictures.key(unit)
                texts.wantCaption(for: key, picture: picture, info: pictures.info(of: key))
            }
        }
        if let message { texts.show(ScreenMessage(text: message, expires: nil)) }
        // Each update collects what was drawn and asks for the clock.
        _ = texts.update(at: 0)
        _ = texts.update(at: 0)
        return (texts, notes)
    }

    /// The centred slot's picture zoomed: a picture of the slot's size,
    /// the sharp region where the zoomed photo covers it, the background elsewhere.
    private func zoomedView(_ pictures: DecodedPictures, assembly: ShowAssembly, at position: Double, log: inout [String]) -> (unit: Int, picture: RasterImage)? {
        let slot = Int(position.rounded())
        guard let unit = pictures.index.item(forSlot: slot), let fitted = pictures.picture(unit) else { return nil }
        let items = pictures.items(ofUnit: unit)
        guard items.count == 1 else {
            log.append("--zoom: the centred slot is a pair of portraits, which does not zoom")
            return nil
        }
        let path = pictures.playlist[items[0]]
        let loader = assembly.recipe.loader
        do {
            let limits = PictureZoom.Limits(fitted: fitted.size, original: try loader.uprightSize(of: path), maximumZoom: settings.input.maxZoom)
            let window = assembly.layout.geometry.slotSize
            let zoomed = PictureZoom.focused(on: focus, scale: zoom, limits: limits)
            // Held to 1x (max_zoom 1, a photo no larger than its slot): the plain picture.
            guard zoomed.isZoomed else { return nil }
            let view = zoomed.view(in: window, limits: limits)
            let part = try loader.loadRegion(path, region: view.region, at: view.onScreen.size)
            return (unit, ZoomedPicture.slotPicture(window: window, background: settings.layout.background, showing: part, at: view.onScreen))
        } catch {
            log.append("--zoom: \(error): showing it unzoomed")
            return nil
        }
    }
}
