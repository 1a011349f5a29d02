/// `pictures`' reply: the playlist a page at a time, each item with the
/// library it comes from, so a list (the web page's) can mark a server's
/// pictures as such and offer to delete only the picture folder's.
///
/// A page holds at most `count` items, and fewer when their names pass
/// ``maximumBytes``: one reply line stays well under the control socket's
/// ``ControlSession/unsentLimit`` even for paths of 4,096 bytes. The next
/// page starts at `from` plus the items given.
public enum PictureListing {
    public static let defaultCount = 100
    public static let maximumCount = 500
    /// The most bytes of names one page carries.
    public static let maximumBytes = 64 * 1024
    /// The box `thumbnail` fits a picture into: twice a list's 160 CSS
    /// pixels, sharp on a phone's screen.
    public static let thumbnailSize = PixelSize(width: 320, height: 320)
    public static let thumbnailQuality = 75

    /// The reply's fields (after `"ok":true`) for items `from..<from+count`
    /// of `playlist`, whose libraries are `libraries` (`status`'s, in order).
    public static func page(of playlist: Playlist, libraries: [LibraryStatus], from: Int, count: Int) -> JSONObject {
        var items: [JSONValue] = []
        var bytes = 0
        var item = from
        while item < playlist.count, items.count < count, bytes < maximumBytes {
            let path = playlist[item]
            let library = libraries.firstIndex { path.hasPrefix($0.scope) }
            let movie = playlist.companion(of: path)
            func name(_ path: String) -> String {
                library.map { String(path.dropFirst(libraries[$0].scope.count)) } ?? Playlist.fileName(of: path)
            }
            let shown = name(path)
            bytes += shown.utf8.count + (movie?.utf8.count ?? 0)
            items.append(.object([
                "index": .int(item), "file": .string(Playlist.fileName(of: path)), "name": .string(shown),
                "library": library.map(JSONValue.int) ?? .null, "kind": library.map { .string(libraries[$0].kind.rawValue) } ?? .null,
                "movie": movie.map { .string(name($0)) } ?? .null,
            ]))
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
