// swift-tools-version:6.0
// kioskd: a DRM/KMS photo kiosk daemon. See README.md for the architecture.
import PackageDescription

// The per-pixel loops (resampling with SIMD, compositing, PNG reduction) are
// compiled optimised in debug builds too: unoptimised they are 50-100x slower,
// which made the debug kioskd that the VM tests run crawl under emulation.
let pixelLoopsOptimised: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

// How the installed programs are linked (kioskd's resident memory, `make bench`):
// - no exported symbols: Swift's static runtime links with --export-dynamic,
//   which put every public symbol of kioskd's modules in the dynamic symbol
//   table (4,413 of them, 381 KB of the stripped daemon); nothing loads the
//   programs' symbols at run time;
// - with lld, for its packed relative relocations (DT_RELR, glibc 2.36):
//   a static Swift runtime makes 43,000 of them, 1 MB of the daemon that
//   ld.so read and kept resident at every start, now 8 KB;
// - the functions a show of JPEGs runs placed together, first
//   (linking/kioskd-hot-functions.txt, made by scripts/order-functions):
//   the kernel maps code 64 KB around each page touched, and scattered
//   over 11 MB they kept 1 MB more of it resident.
let installedProgramLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linking/kioskd-hot-functions.txt", "-Xlinker", "--no-warn-symbol-ordering",
    ], .when(platforms: [.linux]))
]

// FreeType's headers (which libraqm's include) are found only in their own
// folder. pkg-config would say so, but it would also link libraqm and
// FreeType, which COnDemand loads on first use: so CRaqm names no pkg-config
// package, and every Swift module is told the folder (Debian's, on every
// architecture), since each one that imports TextRendering reads CRaqm's
// headers too.
let freeTypeHeaders: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I/usr/include/freetype2"])]

// The property tests' generator: swift-property-based 2.0.1 (the mirror's only
// version) needs tools 6.1, so with Debian 13's Swift 6.0.3 it is left out and
// KioskCoreTests compiles its own small stand-in (PropertyCheckFallback.swift).
#if compiler(>=6.1)
let propertyBased: (package: [Package.Dependency], product: [Target.Dependency]) = (
    [.package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1")],
    [.product(name: "PropertyBased", package: "swift-property-based")])
#else
let propertyBased: (package: [Package.Dependency], product: [Target.Dependency]) = ([], [])
#endif

let package = Package(
    name: "kioskd",
    products: [
        .executable(name: "kioskd", targets: ["kioskd"]),
        .executable(name: "kioskctl", targets: ["kioskctl"]),
        .executable(name: "kioskd-web", targets: ["kioskd-web"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ] + propertyBased.package,
    targets: [
        // Pure logic: layout math, the circular playlist index, settings validation.
        // No C, no I/O: most tests live here.
        .target(name: "KioskCore"),

        // Pixels in memory: XRGB8888 frames, resampling, the strip compositor.
        // Pure Swift too; shared by the snapshot and the DRM scan-out.
        .target(name: "KioskRendering", dependencies: ["KioskCore"], swiftSettings: pixelLoopsOptimised),

        // Every libc call's error (SystemCallError), owned file descriptors,
        // EINTR retries and the monotonic clock: one place for the unsafe basics.
        .target(name: "SystemCalls", dependencies: ["CLinux", "COnDemand"]),

        // The libraries a show of JPEGs does without (the other formats, MQTT,
        // text, XMP and IPTC titles), mapped on first use instead of at start:
        // a jump for each function kioskd calls, filled by dlopen (SystemCalls'
        // OnDemandLibrary). Their module maps below link nothing, and name no
        // pkg-config package, which would link them.
        .target(name: "COnDemand"),

        // Thin C modules: one per C library, imported by exactly one Swift module each.
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // libjpeg-turbo's libjpeg API, for decoding a part of a JPEG (a zoom's
        // sharp region); a C file, since libjpeg's errors need setjmp.
        .target(name: "CLibJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .systemLibrary(
            name: "CSPNG",
            providers: [.apt(["libspng-dev"])]),
        .systemLibrary(
            name: "CEXIF", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        // Exempi (Adobe's XMP toolkit): a photo's XMP dc:title and dc:description, in whatever file holds them.
        .systemLibrary(name: "CExempi", providers: [.apt(["libexempi-dev"])]),
        // libiptcdata: a JPEG's IPTC caption (2:120), as photo agencies and older editors write it.
        .systemLibrary(name: "CIPTC", providers: [.apt(["libiptcdata0-dev"])]),
        // giflib (it ships no pkg-config file).
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        // libwebp and its demuxer (one project, one module): WebP stills with their EXIF chunk.
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        // libheif: HEIC and HEIF photos (an iPhone's), with the container's turns and crop applied.
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        // Not through pkg-config: its -DAVIF_DLL (for Windows) makes SwiftPM warn on every build.
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        // FFmpeg, loaded on first use like CAVIF: no pkg-config, which would link it.
        .systemLibrary(name: "CFFmpeg", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]),
        // libyuv: the planes of HEIF and AVIF photos, shrunk.
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        // Text: libraqm (FriBidi's order, HarfBuzz's shaping) on FreeType's faces and glyphs.
        .systemLibrary(name: "CRaqm", providers: [.apt(["libraqm-dev", "libfreetype-dev"])]),
        // Fonts by family name, and the fallback for each character the family lacks.
        .systemLibrary(name: "CFontconfig", providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        // libcurl, loaded on first use: a server's photo library over HTTP and HTTPS.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Expat, loaded on first use: a WebDAV server's PROPFIND answers.
        .systemLibrary(name: "CExpat", providers: [.apt(["libexpat1-dev"])]),
        // Jansson, loaded on first use: an Immich server's JSON answers.
        .systemLibrary(name: "CJansson", providers: [.apt(["libjansson-dev"])]),
        // GNU libmicrohttpd: kioskd-web's HTTP and HTTPS, driven from its own epoll loop (a C shim for its `...` functions).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // libsodium: kioskd-web's Argon2id password hash, its random tokens, comparisons in constant time.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CLinux"),
        // The kernel's HDMI-CEC API (linux/cec.h and its message builders, cec-funcs.h).
        .systemLibrary(name: "CCEC"),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(
            name: "CDRM", pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(
            name: "CSeat", pkgConfig: "libseat",
            providers: [.apt(["libseat-dev"])]),

        // Files to pixels and back: JPEG (TurboJPEG), EXIF orientation and date (libexif), PNG (libspng).
        .target(
            name: "ImageCodecs", dependencies: ["KioskCore", "KioskRendering", "SystemCalls", "CTurboJPEG", "CLibJPEG", "CSPNG", "CEXIF", "CGIF", "CWebP", "CHEIF", "CAVIF", "CFFmpeg", "CYUV", "CExempi", "CIPTC"],
            swiftSettings: pixelLoopsOptimised),

        // Words to pixels: fonts found by fontconfig, laid out by libraqm,
        // drawn by FreeType into premultiplied ARGB layers for the compositor.
        .target(name: "TextRendering", dependencies: ["KioskCore", "KioskRendering", "SystemCalls", "CRaqm", "CFontconfig"], swiftSettings: pixelLoopsOptimised),

        // The display: DRM/KMS mode setting, dumb buffers, page flips (libdrm).
        .target(name: "DRMOutput", dependencies: ["KioskCore", "KioskRendering", "SystemCalls", "CDRM"]),

        // The Linux primitives the daemon runs on: the epoll run loop and its
        // deadlines, timerfd, eventfd, signalfd, netlink uevents, threads and
        // their priorities. No kiosk logic: KioskApp builds the show on it.
        .target(name: "LinuxPlatform", dependencies: ["SystemCalls", "CLinux", "KioskCore"]),

        // The seat (libseat: seatd, logind or its embedded seatd): the display
        // and input devices without root, given back on a VT switch.
        .target(name: "SeatAccess", dependencies: ["SystemCalls", "CSeat"]),

        // What systemd hands the daemon (libsystemd): the control socket by socket activation.
        .target(name: "ServiceManager", dependencies: ["SystemCalls", "CSystemd"]),

        // Input devices through libevdev: what a device is, its axes, its events.
        .target(name: "InputDevices", dependencies: ["SystemCalls", "KioskCore", "CEvdev"]),

        // HDMI-CEC adapters (/dev/cecN): the TV sleeps and wakes with the display.
        .target(name: "HDMICEC", dependencies: ["SystemCalls", "CCEC"]),

        // An MQTT broker connection (libmosquitto) driven from the run loop: Home Assistant and fleets.
        .target(name: "MQTTClient", dependencies: ["SystemCalls", "CMosquitto"]),
        // HTTP and HTTPS for the photo libraries on servers (libcurl's multi interface).
        .target(name: "HTTPClient", dependencies: ["SystemCalls", "CCurl"]),
        // A WebDAV server's PROPFIND answers (Expat).
        .target(name: "DAVListing", dependencies: ["SystemCalls", "CExpat"]),
        // An Immich server's JSON answers (Jansson), read into KioskCore's JSONValue.
        .target(name: "JSONDocument", dependencies: ["SystemCalls", "KioskCore", "CJansson"]),

        // An HTTP(S) server (libmicrohttpd) driven from its owner's epoll loop: forms read as they arrive, event streams.
        .target(name: "HTTPServer", dependencies: ["SystemCalls", "CMicroHTTPD"]),
        // Password hashes and random tokens (libsodium).
        .target(name: "PasswordHashing", dependencies: ["CSodium"]),
        // kioskd-web's page: the login, the sessions, the API over kioskd's control socket, the uploads.
        .target(
            name: "KioskWeb",
            dependencies: [
                "KioskCore", "KioskConfigFile", "HTTPServer", "PasswordHashing", "ControlClient", "ImageCodecs", "JSONDocument", "LinuxPlatform", "SystemCalls",
                "CLinux",
            ]),

        // The client side of the control socket: kioskctl, the tests and the benchmark.
        .target(name: "ControlClient", dependencies: ["SystemCalls"]),

        // toml++ (Debian's libtomlplusplus, C++) behind a small C API Swift can call: the only C++ target.
        .target(
            name: "CTOML",
            cxxSettings: [.define("TOML_HEADER_ONLY", to: "0"), .define("TOML_SHARED_LIB", to: "1")],
            linkerSettings: [.linkedLibrary("tomlplusplus")]),
        // The TOML config file, mapped onto KioskCore's settings.
        .target(name: "KioskConfigFile", dependencies: ["KioskCore", "CTOML"]),

        // What the executables run (the show, its run loop and sources, snapshot), kept out of main so tests call it.
        .target(
            name: "KioskApp",
            dependencies: [
                "KioskCore", "KioskRendering", "ImageCodecs", "KioskConfigFile", "DRMOutput", "SystemCalls", "LinuxPlatform",
                "ServiceManager", "InputDevices", "CLinux", "SeatAccess", "HDMICEC", "MQTTClient", "TextRendering", "HTTPClient", "DAVListing",
                "JSONDocument",
            ]),

        .executableTarget(
            name: "kioskd",
            dependencies: [
                "KioskApp", "KioskCore", "ImageCodecs", "DRMOutput", "LinuxPlatform", "ServiceManager", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: installedProgramLinking),
        .executableTarget(
            name: "kioskctl",
            dependencies: ["ControlClient", "KioskCore", "SystemCalls", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: installedProgramLinking),
        .executableTarget(
            name: "kioskd-web",
            dependencies: ["KioskWeb", "KioskCore", "PasswordHashing", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: installedProgramLinking),
        // The benchmark command (`make bench`): decode speed and peak memory.
        .executableTarget(
            name: "kioskd-bench",
            dependencies: [
                "KioskApp", "KioskCore", "KioskRendering", "ImageCodecs", "CTurboJPEG", "CWebP", "CHEIF", "CAVIF", "ControlClient", "CLinux", "InputDevices",
                "SystemCalls", "LinuxPlatform", "MQTTClient", "BrokerSupport", "TextRendering", "HTTPClient", "WebServerSupport", "JSONDocument",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The VM tests' virtual touchscreen and keyboard (uinput through libevdev).
        .executableTarget(
            name: "uinput-play",
            dependencies: ["InputDevices", "KioskCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The fuzz targets: control clients, config files and picture files (scripts/fuzz builds it with -sanitize=fuzzer; otherwise it replays inputs).
        .executableTarget(name: "kioskd-fuzz", dependencies: ["KioskCore", "KioskConfigFile", "ImageCodecs", "KioskRendering", "TextRendering", "JSONDocument"]),
        // Regenerates demo/images (committed); not part of the product.
        .executableTarget(name: "make-demo-images", dependencies: ["KioskCore", "KioskRendering", "ImageCodecs"]),

        .testTarget(
            name: "KioskCoreTests",
            dependencies: ["KioskCore", "TestSupport"] + propertyBased.product),
        .testTarget(name: "KioskRenderingTests", dependencies: ["KioskRendering", "KioskCore", "TestSupport"]),
        .testTarget(name: "TextRenderingTests", dependencies: ["TextRendering", "KioskRendering", "KioskCore", "ImageCodecs", "TestSupport"]),
        .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "KioskCore", "KioskRendering", "SystemCalls", "TestSupport", "CHEIF", "CAVIF"]),
        .testTarget(name: "DRMOutputTests", dependencies: ["DRMOutput", "SystemCalls"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "DAVListing", "JSONDocument", "KioskCore", "TestSupport", "WebServerSupport", "LoopbackSupport"]),
        .testTarget(name: "MQTTClientTests", dependencies: ["MQTTClient", "KioskCore", "TestSupport", "BrokerSupport"]),
        // What several test targets share (pipes that close once, a thrown error
        // checked on Swift 6.0 too); tests only.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // A real mosquitto for the MQTT tests and the benchmark, and clients to watch it.
        .target(name: "BrokerSupport", dependencies: ["MQTTClient", "LoopbackSupport"], path: "Tests/BrokerSupport"),
        // A real web server (Debian's Apache with mod_dav) for the tests of the photo libraries on servers.
        .target(name: "WebServerSupport", dependencies: ["LoopbackSupport"], path: "Tests/WebServerSupport"),
        // A free loopback port, and whether one accepts: for the servers above, which the benchmark
        // runs too (so without swift-testing, which a release build does not have).
        .target(name: "LoopbackSupport", path: "Tests/LoopbackSupport"),
        .testTarget(name: "LinuxPlatformTests", dependencies: ["LinuxPlatform", "SystemCalls", "CLinux", "TestSupport"]),
        .testTarget(
            name: "KioskAppTests",
            dependencies: [
                "KioskApp", "KioskCore", "KioskRendering", "DRMOutput", "ImageCodecs", "KioskConfigFile", "SystemCalls", "ControlClient",
                "InputDevices", "LinuxPlatform", "MQTTClient", "BrokerSupport", "WebServerSupport", "LoopbackSupport", "HTTPClient",
                "TestSupport", "TextRendering", "KioskWeb",
            ]),
    ],
    cxxLanguageStandard: .cxx17
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + freeTypeHeaders
}

