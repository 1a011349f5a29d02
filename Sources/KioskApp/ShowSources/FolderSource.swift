import LinuxPlatform
import SystemCalls

/// The picture folder as a source of the show: the ``FolderWatcher``'s
/// news, taken when its descriptor is readable and handed to the show in
/// one go (one batch, one change on screen). The folder going and coming
/// back, and the watch's own remarks, go to the log. A reload that names
/// another folder (or order) swaps the watcher (``watch(with:)``).
final class FolderSource: ShowSource {
    private(set) var watcher: FolderWatcher
    /// The folder was gone at the last news (or at the start).
    private(set) var gone: Bool
    private var loop: EventLoop?
    private var controller: ShowController?
    private var registration: Registration?

    init(watcher: FolderWatcher) {
        self.watcher = watcher
        gone = watcher.firstListing == nil
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        self.loop = loop
        self.controller = controller
        try register()
    }

    private func register() throws(SystemCallError) {
        guard let loop, let controller else { return }
        registration = try loop.register(watcher.readyFD, name: "folder") { [unowned self] _ in
            take(watcher.take(), controller: controller)
        }
    }

    /// Watches with `newWatcher` from now on; the old one stops.
    func watch(with newWatcher: FolderWatcher) throws(SystemCallError) {
        if let registration { loop?.unregister(registration) }
        watcher.stop()
        watcher = newWatcher
        gone = newWatcher.firstListing == nil
        try register()
    }

    func take(_ news: [FolderNews], controller: ShowController) {
        guard !news.isEmpty else { return }
        for item in news {
            switch item {
            case .note(let line):
                controller.publish(.folderNote(line))
            case .folderGone where !gone:
                gone = true
                controller.publish(.folderGone(folder: watcher.root))
            case .listing(let entries, let notes) where gone:
                gone = false
                controller.publish(.folderBack(folder: watcher.root, count: entries.count))
                notes.forEach { controller.publish(.folderNote($0)) }
            default:
                break
            }
        }
        controller.folderChanged(news)
    }
}
