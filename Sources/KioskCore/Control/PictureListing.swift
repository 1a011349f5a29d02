/// `pictures`' reply: the playlist a page at a time, each item with the
/// library it comes from, so a list (the web page's) can mark a server's
/// pictures as such and offer to delete only the picture folder's.
///
/// A page holds at most `count` items, and fewer when their names pass
/// ``maximumBytes`` as written: one reply line stays under the control
/// socket's ``ControlSession/unsentLimit`` (256 KiB) even for an item of
/// 4,096 bytes of quotes (about 50 KiB written). The next
/// page starts at `from` plus the items given.
public enum PictureListing {
    public static let defaultCount = 100
    public static let maximumCount = 500
    /// The most bytes of items one page carries, as written (the last may pass it).
    public static let maximumBytes = 64 * 1024
    /// The box `thumbnail` fits a picture into: twice a list's 160 CSS
    /// pixels, sharp on a phone's screen.
    public static let thumbnailSize = PixelSize(width: 320, height: 320)
    public static let thumbnailQuality = 75

    /// The library `path` is in (its place in `libraries`), and its name
    /// within it (`2024/beach.jpg`); outside them all, its file's name.
    /// Compared as bytes, as the kernel names files.
    public static func place(of path: String, in libraries: [LibraryStatus]) -> (library: Int?, name: String) {
        guard let library = libraries.firstIndex(where: { path.utf8.starts(with: $0.scope.utf8) }) else { return (nil, Playlist.fileName(of: path)) }
        return (library, String(decoding: path.utf8.dropFirst(libraries[library].scope.utf8.count), as: UTF8.self))
    }

    /// The reply's fields (after `"ok":true`) for items `from..<from+count`
    /// of `playlist`, whose libraries are `libraries` (`status`'s, in order).
    public static func page(of playlist: Playlist, libraries: [LibraryStatus], from: Int, count: Int) -> JSONObject {
        var items: [JSONValue] = []
        var bytes = 0
        var item = from
        while item < playlist.count, items.count < count, bytes < maximumBytes {
            let path = playlist[item]
            let (library, name) = place(of: path, in: libraries)
            let movie = playlist.companion(of: path).map { place(of: $0, in: libraries).name }
            let listed = JSONObject([
                ("index", .int(item)), ("file", .string(Playlist.fileName(of: path))), ("name", .string(name)),
                ("library", library.map(JSONValue.int) ?? .null), ("kind", library.map { .string(libraries[$0].kind.rawValue) } ?? .null),
                ("movie", movie.map(JSONValue.string) ?? .null),
            ])
            // As written: a name of quotes or control characters takes up to six times its bytes.
            bytes += listed.line.count
            items.append(.object(listed))
            item += 1
        }
        return ["count": .int(playlist.count), "from": .int(from), "pictures": .array(items)]
    }
}

/// `settings`' reply: every setting, in the table's order, with its value
/// in force and whether `set` changed it; the web page's settings form
/// adds each one's help from the same table.
public enum SettingsListing {
    public static func reply(_ settings: KioskSettings, setKeys: Set<String>) -> JSONObject {
        ["settings": .array(KioskSettings.table.descriptors.map { setting in
            .object([
                "name": .string(setting.key), "value": setting.shownValue(in: settings).map(JSONValue.string) ?? .null,
                "set": .bool(setKeys.contains(setting.key)), "settable": .bool(setting.takesSet), "reload": .string(setting.reload.rawValue),
            ])
        })]
    }
}
