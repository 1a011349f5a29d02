// libraqm lays text out (FriBidi orders it, HarfBuzz shapes it) on FreeType
// faces, and FreeType draws the glyphs: raqm's API is made of FreeType's
// types, so the two are one module, imported by TextRendering alone.
#include <raqm.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H
#include FT_OUTLINE_H
