import ImageCodecs
import KioskCore

/// The pictures around the strip's position: which are on screen, which to
/// decode next (the preload plan, in the direction of travel), and what a
/// batch of finished decodes changed. Only this neighbourhood is kept in memory.
struct PictureNeighbourhood {
    var pictures: DecodedPictures
    let geometry: CarouselGeometry
    var position: Double
    var direction: TravelDirection = .forward
    /// Where the strip is going (``PreloadPlan/items(_:at:travelling:towards:playlist:)``): nil at rest.
    var destination: Double?
    var plan = PreloadPlan()

    init(pictures: DecodedPictures, geometry: CarouselGeometry, position: Double) {
        self.pictures = pictures
        self.geometry = geometry
        self.position = position
    }

    /// The units (``DecodedPictures/index``) in slots on screen now.
    var unitsOnScreen: Set<Int> {
        let index = pictures.index
        return Set(geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index) })
    }

    /// True when every slot on screen has its picture.
    var allOnScreen: Bool { waitingOnScreen == 0 }
    /// The pictures on screen not decoded yet: their slots show the background.
    var waitingOnScreen: Int { unitsOnScreen.filter { pictures.picture($0) == nil }.count }

    /// Files whose sizes to read next (`portrait_pairs`), nearest the
    /// centre first: a few while a unit near the screen still waits for
    /// them, more at a time once none does (a large folder is measured in
    /// few batches, each a relayout of the strip).
    var toMeasure: [String] {
        guard pictures.measuring else { return [] }
        let near = plan.items(geometry, at: position, travelling: direction, towards: destination, playlist: pictures.index)
        let waiting = near.contains { !pictures.isSettled($0) }
        let limit = waiting ? 32 : max(256, pictures.playlist.count / 16)
        return pictures.toMeasure(around: Int(position.rounded()), limit: limit)
    }

    /// Files to decode next, most urgent first (and drops what is no longer
    /// wanted from the cache).
    mutating func wanted() -> [PictureKey] {
        pictures.want(plan.items(geometry, at: position, travelling: direction, towards: destination, playlist: pictures.index))
    }

    /// What a batch of finished decodes brought.
    struct Arrivals {
        /// A picture on screen arrived: draw a frame.
        var onScreen = false
        /// Files that cannot be shown, still in the playlist.
        var refused: [ImageFileError] = []
        /// What the decoder noted about files (``PictureInfo/note``), each file's once.
        var notes: [(file: String, note: String)] = []
    }

    /// The files whose note was told already.
    private var noted: Set<String> = []

    mutating func take(_ outcomes: [DecodeOutcome]) -> Arrivals {
        var arrivals = Arrivals()
        for outcome in outcomes {
            if case .decoded(let key, _, _, let info) = outcome, let file = key.file, let note = info?.note, noted.insert(file).inserted {
                arrivals.notes.append((file, note))
            }
            switch pictures.accept(outcome) {
            case .stored(let path):
                if unitsOnScreen.contains(where: { pictures.key($0) == path }) { arrivals.onScreen = true }
            case .discarded:
                break
            case .refused(let error):
                arrivals.refused.append(error)
            }
        }
        return arrivals
    }
}
