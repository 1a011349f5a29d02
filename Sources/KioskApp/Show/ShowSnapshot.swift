import ImageCodecs
import KioskCore

/// What any source may ask of the running show, read at one moment: a
/// value, so a source that holds it cannot change the show or see it
/// change under it. Sources get three things from the ``ShowController``:
/// ``ShowController/perform(_:sensedAt:)``, ``ShowController/subscribe(_:)``
/// and this (``ShowController/snapshot``). `status`, `watch`, systemd's
/// `STATUS=`, the resume file, the input's mapping and the display's power
/// are all built from it; none reaches into ``RunningShow``.
struct ShowSnapshot {
    /// When it was read (the controller's clock).
    let time: Double
    /// The playlist, in the show's order.
    let playlist: Playlist
    let centred: Centred
    let strip: Strip
    /// The centred picture's zoom for `status`; nil while it is fitted.
    let zoom: ZoomStatus?
    /// The centred picture is zoomed (or going back to 1x): one finger pans it.
    let zoomed: Bool
    let screen: Screen
    /// The show has been presenting a frame for too long (``RunningShow/isStuck(at:)``): the watchdog stops.
    let stuck: Bool
    let statistics: ShowStatistics
    /// The decoded pictures held, and what they may hold (bytes).
    let cache: (bytes: Int, budget: Int)
    let words: Words

    /// The words on the screen, as drawn (nil where there are none).
    struct Words {
        /// The centred picture's caption.
        let caption: String?
        let clock: String?
        let message: String?
    }

    /// What the centre shows, or what the strip slides to.
    struct Centred {
        /// The playlist item (with `portrait_pairs`, the left one of a pair); nil for an empty playlist.
        let item: Int?
        /// Its files (paths): one, or a pair's two, left to right.
        let files: [String]
        /// What the decoder learnt of it (its size, its date), once decoded; nil for a pair.
        let info: PictureInfo?
    }

    /// Where the strip is and how it moves.
    struct Strip {
        /// The strip's slots: the playlist's items, a pair counting once.
        let slotCount: Int
        /// Its position in slots, within the loop (2.5: halfway from slot 2 to 3).
        let position: Double
        let paused: Bool
        let moving: Bool
        /// The rest between slides, and the slide itself.
        let interval: Double
        /// The playlist's order (the `order` setting).
        let order: PictureOrder
        /// When someone last touched the kiosk; whether a finger holds the strip now.
        let lastPresence: Double?
        let held: Bool
        let motion: StripMotion
        /// Every slot on screen has its picture: a frame drawn now is the
        /// whole picture, not the background where a neighbour still decodes.
        let allOnScreen: Bool
        /// How many pictures on screen are still being decoded (`pictures_waiting`).
        let waitingOnScreen: Int
        /// The clip playing in the centre, once its first frame is on screen.
        let clip: ClipStatus?
    }

    /// The panel and how the strip lies on it.
    struct Screen {
        /// What the panel is doing (``PanelState``).
        let panel: PanelState
        /// What shows the frames, for `status`.
        let display: DisplayDescription
        /// The panel's size in millimetres, when the display says (a touch's slop in pixels).
        let physicalSize: PhysicalSize?
        /// The strip's layout: where each slot lies, for touches.
        let geometry: CarouselGeometry
        /// How the panel is turned (a touchscreen turns with it).
        let rotation: Rotation
        /// Why frames are not panned (``ShowPanner``); nil while they are.
        let panningOffReason: String?
    }

    var centredItem: Int? { centred.item }
    var paused: Bool { strip.paused }
    var panel: PanelState { screen.panel }
    /// The display is switched off.
    var asleep: Bool { screen.panel == .off }

    /// A playlist item's file name (not its path), as `status` and `kioskctl` show it.
    func fileName(of item: Int) -> String { Playlist.fileName(of: playlist[item]) }
}

extension RunningShow {
    /// The show as it is at `now`.
    func snapshot(at now: Double) -> ShowSnapshot {
        let decoded = pictures.pictures
        let slots = decoded.index.count
        let position = schedule.position(at: now)
        let centredUnit = decoded.index.item(forSlot: schedule.target)
        return ShowSnapshot(
            time: now, playlist: decoded.playlist,
            centred: .init(item: centredItem, files: centredFiles, info: centredUnit.flatMap { decoded.info(of: decoded.key($0)) }),
            strip: .init(
                slotCount: slots, position: slots == 0 ? 0 : position - (position / Double(slots)).rounded(.down) * Double(slots),
                paused: schedule.isPaused, moving: schedule.isMoving(at: now), interval: schedule.interval, order: order,
                lastPresence: schedule.lastPresence, held: schedule.isHeld, motion: schedule.motion, allOnScreen: pictures.allOnScreen,
                waitingOnScreen: pictures.waitingOnScreen, clip: strip.clip?.status(at: now)),
            zoom: zoomStatus(at: now), zoomed: isZoomed,
            screen: .init(
                panel: panel, display: screen.displayDescription, physicalSize: screen.physicalSize, geometry: layout.geometry,
                rotation: layout.renderer.rotation, panningOffReason: panner.offReason),
            stuck: isStuck(at: now), statistics: progress(at: now), cache: (pictures.pictures.cachedBytes, layout.cacheBudget),
            words: .init(
                caption: centredUnit.flatMap { texts.shownWords[.caption(decoded.key($0))] }, clock: texts.clockWords,
                message: texts.messageWords))
    }
}
