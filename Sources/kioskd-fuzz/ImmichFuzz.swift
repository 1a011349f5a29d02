import JSONDocument
import KioskCore

/// What an Immich server (or anyone between it and the kiosk) can answer:
/// the bytes read as JSON by Jansson, then as each answer kioskd reads.
/// Whatever is taken must name files the mirror can hold: no slash, no
/// leading dot, no control character, no more than 255 bytes.
func readImmichAnswer(_ bytes: UnsafeRawBufferPointer) {
    guard let json = try? JSONDocument.parse(Array(bytes)) else { return }
    var assets: [ImmichAsset] = []
    if let page = try? ImmichAnswers.searchPage(json) {
        assets += page.assets
        check(page.nextPage.map { $0 > 0 } ?? true, "a next page that is not a page: \(String(describing: page.nextPage))")
    }
    if let list = try? ImmichAnswers.assetList(json) { assets += list.assets }
    if let memories = try? ImmichAnswers.memories(json) { assets += memories.assets }
    _ = try? ImmichAnswers.albums(json)
    _ = try? ImmichAnswers.people(json)
    for asset in assets {
        check(ImmichAsset.isID(asset.id), "an id taken that could break a URL: \(asset.id.debugDescription)")
        check(asset.livePhotoVideoId.map(ImmichAsset.isID) ?? true, "a movie's id taken that could break a URL")
        for file in [ImmichFile.picture(.preview), .picture(.original), .clip, .motion] {
            let name = asset.mirrorName(file)
            check(!name.contains("/") && !name.hasPrefix(".") && name.utf8.count <= RemotePath.longestName, "a name the mirror cannot hold: \(name.debugDescription)")
            check(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control character in \(name.debugDescription)")
            check(asset.remoteFile(file) != nil, "no file for \(name.debugDescription)")
            if let path = asset.fetchPath(file) {
                check(!path.contains("..") && !path.unicodeScalars.contains { $0.value <= 0x20 }, "a fetch path that leaves the API: \(path.debugDescription)")
            }
        }
    }
}
