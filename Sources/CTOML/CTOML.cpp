// toml++ through a C walk (see include/CTOML.h). Debian builds the library
// with NDEBUG, so a malformed header such as "[" is a parse error there, not
// the assertion that aborted TOMLKit's vendored copy; the tests check it.
#include "CTOML.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <toml++/toml.h>

namespace {

using Visitor = void (*)(void *, const ctoml_item *);

ctoml_item itemAt(const toml::node &node, const toml::key *key) {
    ctoml_item item{};
    item.key = key ? key->data() : nullptr;
    item.key_length = key ? key->length() : 0;
    item.line = node.source().begin.line;
    item.column = node.source().begin.column;
    return item;
}

void walk(const toml::node &node, const toml::key *key, Visitor visit, void *context) {
    ctoml_item item = itemAt(node, key);
    switch (node.type()) {
    case toml::node_type::string: {
        const std::string &text = node.as_string()->get();
        item.kind = ctoml_string;
        item.text = text.data();
        item.text_length = text.size();
        visit(context, &item);
        return;
    }
    case toml::node_type::integer:
        item.kind = ctoml_integer;
        item.integer = node.as_integer()->get();
        visit(context, &item);
        return;
    case toml::node_type::floating_point:
        item.kind = ctoml_float;
        item.number = node.as_floating_point()->get();
        visit(context, &item);
        return;
    case toml::node_type::boolean:
        item.kind = ctoml_boolean;
        item.boolean = node.as_boolean()->get();
        visit(context, &item);
        return;
    case toml::node_type::array:
        item.kind = ctoml_array;
        visit(context, &item);
        for (const toml::node &element : *node.as_array()) walk(element, nullptr, visit, context);
        break;
    case toml::node_type::table:
        item.kind = ctoml_table;
        visit(context, &item);
        for (const auto &[name, element] : *node.as_table()) walk(element, &name, visit, context);
        break;
    default:
        item.kind = ctoml_other;
        visit(context, &item);
        return;
    }
    ctoml_item end{};
    end.kind = ctoml_end;
    visit(context, &end);
}

void describe(ctoml_error *error, uint32_t line, uint32_t column, const char *message, size_t length) {
    error->line = line;
    error->column = column;
    size_t count = length < sizeof error->message - 1 ? length : sizeof error->message - 1;
    std::memcpy(error->message, message, count);
    error->message[count] = 0;
}

}  // namespace

extern "C" bool ctoml_walk(const char *text, size_t length, Visitor visit, void *context, ctoml_error *error) {
    try {
        toml::table root = toml::parse(std::string_view(text, length));
        walk(root, nullptr, visit, context);
        return true;
    } catch (const toml::parse_error &failure) {
        std::string_view description = failure.description();
        describe(error, failure.source().begin.line, failure.source().begin.column, description.data(), description.size());
    } catch (const std::bad_alloc &) {
        static const char message[] = "not enough memory to read it";
        describe(error, 0, 0, message, sizeof message - 1);
    } catch (...) {
        static const char message[] = "the TOML parser failed";
        describe(error, 0, 0, message, sizeof message - 1);
    }
    return false;
}
