import KioskCore
import LinuxPlatform
import SystemCalls

/// The show's libraries as a source (``PictureLibrary``): each one's news,
/// taken when its descriptor is readable and handed to the show in one go
/// (one batch, one change on screen), tagged with the library it came
/// from, so that a library's new listing, or its going, touches its own
/// pictures only. Each library's state (`online`, `offline`) and since
/// when is what `status` reports (``ShowController/libraries``); a folder
/// going and coming back, and each library's remarks, go to the log. A
/// reload that names another folder (or order) swaps the libraries
/// (``use(_:)``).
final class LibrarySource: ShowSource {
    private(set) var libraries: [any PictureLibrary]
    private var loop: EventLoop?
    private var controller: ShowController?
    private var registrations: [Registration] = []
    /// Each library's state, in `libraries`' order; given to the controller as it changes.
    private(set) var statuses: [LibraryStatus]
    /// Why each server library is not online, as last reported (a new reason is a line in the log).
    private var reasons: [Int: String] = [:]
    /// Unix time now (tests set it).
    let wallClock: () -> Int64

    init(libraries: [any PictureLibrary], wallClock: @escaping () -> Int64 = WallClockTimer.now) {
        self.libraries = libraries
        self.wallClock = wallClock
        statuses = Self.statuses(of: libraries, at: wallClock())
    }

    private static func statuses(of libraries: [any PictureLibrary], at now: Int64) -> [LibraryStatus] {
        libraries.map { library in
            var status = LibraryStatus(
                kind: library.kind, source: library.source, state: library.firstListing == nil ? .offline : .online, since: now,
                scope: library.scope)
            if let report = library.takeReport() {
                status.state = report.state
                status.counts = (report.listed, report.cached)
            }
            return status
        }
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        self.loop = loop
        self.controller = controller
        controller.libraries = statuses
        try register()
    }

    private func register() throws(SystemCallError) {
        guard let loop, let controller else { return }
        for (index, library) in libraries.enumerated() {
            registrations.append(try loop.register(library.readyFD, name: "library \(library.source)") { [unowned self] _ in
                take(libraries[index].take(), from: index, controller: controller)
            })
            if let reportFD = library.reportFD {
                registrations.append(try loop.register(reportFD, name: "library \(library.source)'s state") { [unowned self] _ in
                    if let report = libraries[index].takeReport() { take(report, from: index, controller: controller) }
                })
            }
        }
    }

    /// Takes its news from `newLibraries` from now on; the old ones stop.
    func use(_ newLibraries: [any PictureLibrary]) throws(SystemCallError) {
        for registration in registrations { loop?.unregister(registration) }
        registrations = []
        stop()
        libraries = newLibraries
        reasons = [:]
        statuses = Self.statuses(of: newLibraries, at: wallClock())
        controller?.libraries = statuses
        try register()
    }

    /// Stops every library's thread.
    func stop() { libraries.forEach { $0.stop() } }

    /// A server library's state and counts: `status` follows them, and a
    /// change of state (or of why it is not online) is a line in the log.
    func take(_ report: LibraryReport, from index: Int, controller: ShowController) {
        guard statuses.indices.contains(index) else { return }
        let changed = statuses[index].change(to: report.state, at: wallClock())
        statuses[index].counts = (report.listed, report.cached)
        controller.libraries = statuses
        if changed || report.reason != reasons[index] {
            controller.publish(.libraryChanged(statuses[index], reason: report.reason))
        }
        reasons[index] = report.reason
        report.notes.forEach { controller.publish(.folderNote($0)) }
    }

    /// Hands the show library `index`'s `news`.
    func take(_ news: [FolderNews], from index: Int, controller: ShowController) {
        guard !news.isEmpty, statuses.indices.contains(index) else { return }
        let source = statuses[index].source
        for item in news {
            switch item {
            case .note(let line):
                controller.publish(.folderNote(line))
            case .folderGone where statuses[index].change(to: .offline, at: wallClock()):
                controller.libraries = statuses
                controller.publish(.folderGone(folder: source))
            case .listing(let entries, let notes) where statuses[index].change(to: .online, at: wallClock()):
                controller.libraries = statuses
                controller.publish(.folderBack(folder: source, count: entries.count))
                notes.forEach { controller.publish(.folderNote($0)) }
            default:
                break
            }
        }
        controller.folderChanged(news, within: statuses[index].scope)
    }
}
