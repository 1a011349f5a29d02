import ImageCodecs
import KioskCore
import KioskRendering

/// The show's playlist and the decoded pictures it keeps, within a budget.
///
/// Decoding happens elsewhere (the ``DecodeWorker`` for the display, in line
/// for a snapshot): this says what to decode next and takes in the results.
/// A file that fails is dropped from the playlist with one log line, as if it
/// had never been in the folder.
struct ShowPictures {
    private(set) var playlist: [String]
    private var cache: ByteBoundedCache<String, RasterImage>
    /// A missing picture's cost, for planning: a whole slot in XRGB8888.
    private let slotBytes: Int

    init(playlist: [String], slot: PixelSize, budget: Int) {
        self.playlist = playlist
        cache = ByteBoundedCache(budget: budget)
        slotBytes = slot.pixelCount * 4
    }

    var index: CircularIndex { CircularIndex(count: playlist.count) }
    var cachedBytes: Int { cache.bytes }

    func picture(_ item: Int) -> RasterImage? { cache[playlist[item]] }

    /// Keeps only `items` (most urgent first) and returns the files still to
    /// decode, most urgent first, as many as the budget holds.
    mutating func want(_ items: [Int]) -> [String] {
        cache.want(items.map { playlist[$0] })
        return cache.missing(estimatedBytes: slotBytes)
    }

    /// What a finished decode changed.
    enum Change: Equatable {
        /// The picture is in the cache now.
        case stored
        /// Finished, but the show no longer wants it (it moved on).
        case discarded
        /// The file failed and left the playlist: the line to log, and the
        /// item it was (later items move down by one).
        case dropped(String, item: Int)
    }

    mutating func accept(_ outcome: DecodeOutcome) -> Change {
        switch outcome {
        case .decoded(let path, let picture):
            return cache.insert(picture, bytes: picture.pixels.count * 4, for: path) ? .stored : .discarded
        case .failed(let error):
            guard let index = playlist.firstIndex(of: error.path) else { return .discarded }
            playlist.remove(at: index)
            return .dropped("skipping \(error)", item: index)
        }
    }

    /// Decodes in line until every picture in `items` is held: what a
    /// snapshot does, where nothing else is waiting. Returns the log lines.
    /// Each round stores a picture or drops a file, so it ends.
    mutating func loadNow(_ items: (CircularIndex) -> [Int], with loader: PictureLoader, slot: PixelSize) -> [String] {
        var log: [String] = []
        while let path = want(items(index)).first {
            switch accept(loader.outcome(of: path, fittedTo: slot)) {
            case .stored: continue
            case .discarded: return log   // cannot happen: planned within the budget
            case .dropped(let line, _): log.append(line)
            }
        }
        return log
    }
}
