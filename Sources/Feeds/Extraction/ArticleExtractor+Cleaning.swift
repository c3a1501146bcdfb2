import Foundation

extension Extraction {
    // MARK: - Cleaning the article

    /// Removes from the gathered article what is not part of it: presentational attributes,
    /// forms, embeds, share widgets, controls, low-weight headings, and blocks that look
    /// like navigation or ads; fixes lazy images; unwraps one-cell layout tables.
    mutating func prepareArticle(_ content: Int) {
        cleanStyles(content)
        markDataTables(content)
        fixLazyImages(content)
        cleanConditionally(content, tag: "form")
        cleanConditionally(content, tag: "fieldset")
        for tag in ["object", "embed", "footer", "link", "aside"] { clean(content, tag: tag) }
        for child in dom.elementChildren(of: content) { removeShareWidgets(in: child) }
        for tag in ["iframe", "input", "textarea", "select", "button"] { clean(content, tag: tag) }
        for heading in dom.elements(in: content, named: ["h1", "h2"]) where classWeight(heading) < 0 {
            dom.detach(heading)
        }
        cleanConditionally(content, tag: "table")
        cleanConditionally(content, tag: "ul")
        cleanConditionally(content, tag: "div")
        for heading in dom.elements(in: content, named: ["h1"]) { dom.nodes[heading].name = "h2" }
        for paragraph in dom.elements(in: content, named: ["p"]) {
            let media = dom.elements(in: paragraph, named: ["img", "embed", "object", "iframe"]).count
            if media == 0 && dom.innerText(of: paragraph, normalizingSpaces: false).isEmpty { dom.detach(paragraph) }
        }
        for br in dom.elements(in: content, named: ["br"]) {
            let next = skippingWhitespace(from: dom.nodes[br].next)
            if next >= 0 && dom.nodes[next].name == "p" { dom.detach(br) }
        }
        unwrapSingleCellTables(content)
    }

    static let presentationalAttributes = [
        "align", "background", "bgcolor", "border", "cellpadding", "cellspacing", "frame", "hspace", "rules", "style",
        "valign", "vspace",
    ]

    mutating func cleanStyles(_ root: Int) {
        for node in [root] + dom.descendants(of: root) where !dom.nodes[node].isText {
            if dom.nodes[node].name == "svg"
                || dom.ancestors(of: node).contains(where: { dom.nodes[$0].name == "svg" && dom.contains(root, $0) })
            {
                continue
            }
            dom.nodes[node].attributes.removeAll { Self.presentationalAttributes.contains($0.name) }
            if ["table", "th", "td", "hr", "pre"].contains(dom.nodes[node].name) {
                dom.nodes[node].attributes.removeAll { $0.name == "width" || $0.name == "height" }
            }
        }
    }

    /// Tables that hold data (a caption, headers, many cells) rather than layout.
    mutating func markDataTables(_ root: Int) {
        for table in dom.elements(in: root, named: ["table"]) {
            if dom.attribute("role", of: table) == "presentation" || dom.attribute("datatable", of: table) == "0" { continue }
            if let summary = dom.attribute("summary", of: table), !summary.isEmpty {
                dataTables.insert(table)
                continue
            }
            let inside = dom.descendants(of: table)
            if let caption = inside.first(where: { dom.nodes[$0].name == "caption" }), dom.nodes[caption].firstChild >= 0 {
                dataTables.insert(table)
                continue
            }
            if inside.contains(where: { ["col", "colgroup", "tfoot", "thead", "th"].contains(dom.nodes[$0].name) }) {
                dataTables.insert(table)
                continue
            }
            if inside.contains(where: { dom.nodes[$0].name == "table" }) { continue }
            var rows = 0
            var columns = 0
            for row in inside where dom.nodes[row].name == "tr" {
                rows += max(Int(dom.attribute("rowspan", of: row) ?? "") ?? 1, 1)
                var cells = 0
                for cell in dom.elements(in: row, named: ["td"]) {
                    cells += max(Int(dom.attribute("colspan", of: cell) ?? "") ?? 1, 1)
                }
                columns = max(columns, cells)
            }
            if rows == 1 || columns == 1 { continue }
            if rows >= 10 || columns > 4 || rows * columns > 10 { dataTables.insert(table) }
        }
    }

    /// Images whose real address sits in a `data-*` attribute (loaded by a script) get it
    /// as `src` or `srcset`.
    mutating func fixLazyImages(_ root: Int) {
        for element in dom.elements(in: root, named: ["img", "picture", "figure"]) {
            let name = dom.nodes[element].name
            let src = dom.attribute("src", of: element) ?? ""
            let srcset = dom.attribute("srcset", of: element) ?? ""
            let isLazy = (dom.attribute("class", of: element) ?? "").lowercased().contains("lazy")
            if src.lowercased().hasPrefix("data:"), !src.lowercased().hasPrefix("data:image/svg+xml"), src.utf16.count < 160,
                dom.nodes[element].attributes.contains(where: { $0.name != "src" && Self.namesImage($0.value) })
            {
                dom.removeAttribute("src", of: element)
            } else if (!src.isEmpty || (!srcset.isEmpty && srcset != "null")) && !isLazy {
                continue
            }
            for attribute in dom.nodes[element].attributes where !["src", "srcset", "alt"].contains(attribute.name) {
                let target: String
                if Self.isImageSourceSet(attribute.value) {
                    target = "srcset"
                } else if Self.isSingleImageURL(attribute.value) {
                    target = "src"
                } else {
                    continue
                }
                if name == "img" || name == "picture" {
                    dom.setAttribute(target, attribute.value, of: element)
                } else if dom.elements(in: element, named: ["img", "picture"]).isEmpty {
                    let image = dom.createElement("img", attributes: [.init(name: target, value: attribute.value)])
                    dom.append(image, to: element)
                }
            }
        }
    }

    static let imageExtensions = [".jpg", ".jpeg", ".png", ".webp"]

    static func namesImage(_ value: String) -> Bool {
        let lower = value.lowercased()
        return imageExtensions.contains { lower.contains($0) }
    }

    /// `a.jpg 1x, b.jpg 2x`: an image extension followed by white space and a digit.
    static func isImageSourceSet(_ value: String) -> Bool {
        let lower = value.lowercased()
        for ext in imageExtensions {
            var searchRange = lower.startIndex..<lower.endIndex
            while let found = lower.range(of: ext, range: searchRange) {
                let rest = lower[found.upperBound...]
                let afterSpace = rest.drop { $0.isWhitespace }
                if afterSpace.count < rest.count, let first = afterSpace.first, first.isNumber { return true }
                searchRange = found.upperBound..<lower.endIndex
            }
        }
        return false
    }

    /// One URL (no inner spaces) with an image extension.
    static func isSingleImageURL(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        return !trimmed.isEmpty && !trimmed.contains(where: \.isWhitespace) && namesImage(trimmed)
    }

    /// Removes every `tag` element, except embeds of known video sites.
    mutating func clean(_ root: Int, tag: String) {
        let isEmbed = ["object", "embed", "iframe"].contains(tag)
        for node in dom.elements(in: root, named: [tag]) {
            if isEmbed && dom.nodes[node].attributes.contains(where: { ClassPatterns.isVideo($0.value) }) { continue }
            dom.detach(node)
        }
    }

    /// Removes short elements whose class or id names sharing.
    mutating func removeShareWidgets(in root: Int) {
        var node = dom.nextElement(after: root)
        let end = dom.nextElement(after: root, skippingChildren: true)
        while node >= 0 && node != end {
            if ClassPatterns.isShare(dom.classAndID(of: node)) && dom.textContent(of: node).utf16.count < Self.characterThreshold
            {
                node = removeAndGetNext(node)
            } else {
                node = dom.nextElement(after: node)
            }
        }
    }

    /// Removes `tag` elements that look like anything but content: too many images,
    /// links, inputs or list items for their paragraphs, a negative class, no text.
    mutating func cleanConditionally(_ root: Int, tag: String) {
        guard flags.contains(.cleanConditionally) else { return }
        for node in dom.elements(in: root, named: [tag]).reversed() where dom.contains(root, node) {
            if shouldRemoveConditionally(node, tag: tag) { dom.detach(node) }
        }
    }

    func shouldRemoveConditionally(_ node: Int, tag: String) -> Bool {
        let innerText = dom.innerText(of: node)
        let textLength = innerText.utf16.count
        var isList = tag == "ul" || tag == "ol"
        if !isList {
            let listLength = dom.elements(in: node, named: ["ul", "ol"]).reduce(0) { $0 + dom.innerTextLength(of: $1) }
            isList = textLength > 0 ? Double(listLength) / Double(textLength) > 0.9 : listLength > 0
        }
        if tag == "table" && dataTables.contains(node) { return false }
        if hasAncestor(node, named: "table", maxDepth: -1, where: { dataTables.contains($0) }) { return false }
        if hasAncestor(node, named: "code") { return false }
        let inside = dom.descendants(of: node)
        if inside.contains(where: { dataTables.contains($0) }) { return false }
        let weight = classWeight(node)
        if weight < 0 { return true }
        guard innerText.unicodeScalars.count(where: { $0 == "," }) < 10 else { return false }
        func count(_ names: Set<String>) -> Int { inside.count { names.contains(dom.nodes[$0].name) } }
        let paragraphs = count(["p"])
        let images = count(["img"])
        let listItems = count(["li"]) - 100
        let inputs = count(["input"])
        let headingDensity = textDensity(node, tags: ["h1", "h2", "h3", "h4", "h5", "h6"], total: textLength)
        var embeds = 0
        for embed in inside where ["object", "embed", "iframe"].contains(dom.nodes[embed].name) {
            if dom.nodes[embed].attributes.contains(where: { ClassPatterns.isVideo($0.value) }) { return false }
            embeds += 1
        }
        if ClassPatterns.isAdOrLoading(innerText) { return true }
        let density = linkDensity(node)
        let textish = textDensity(node, tags: Self.blockElements.union(["span", "li", "td"]), total: textLength)
        let isFigureChild = hasAncestor(node, named: "figure")
        var remove = false
        if !isFigureChild && images > 1 && Double(paragraphs) / Double(images) < 0.5 { remove = true }
        if !isList && listItems > paragraphs { remove = true }
        if inputs > paragraphs / 3 { remove = true }
        if !isList && !isFigureChild && headingDensity < 0.9 && textLength < 25 && (images == 0 || images > 2) && density > 0 {
            remove = true
        }
        if !isList && weight < 25 && density > 0.2 { remove = true }
        if weight >= 25 && density > 0.5 { remove = true }
        if (embeds == 1 && textLength < 75) || embeds > 1 { remove = true }
        if images == 0 && textish == 0 { remove = true }
        if isList && remove {
            // A list of images (a gallery) stays.
            if dom.elementChildren(of: node).contains(where: { dom.elementChildren(of: $0).count > 1 }) { return true }
            if images == count(["li"]) { return false }
        }
        return remove
    }

    /// The share of `node`'s text inside elements named `tags`.
    func textDensity(_ node: Int, tags: Set<String>, total: Int) -> Double {
        guard total > 0 else { return 0 }
        let inside = dom.elements(in: node, named: tags).reduce(0) { $0 + dom.innerTextLength(of: $1) }
        return Double(inside) / Double(total)
    }

    /// A table of one row of one cell becomes that cell, as a `<p>` or a `<div>`.
    mutating func unwrapSingleCellTables(_ root: Int) {
        for table in dom.elements(in: root, named: ["table"]) {
            let body = hasSingleElement(table, named: "tbody") ? dom.firstElementChild(of: table) : table
            guard hasSingleElement(body, named: "tr") else { continue }
            let row = dom.firstElementChild(of: body)
            guard hasSingleElement(row, named: "td") else { continue }
            let cell = dom.firstElementChild(of: row)
            dom.nodes[cell].name = dom.childNodes(of: cell).allSatisfy(isPhrasingContent) ? "p" : "div"
            dom.replace(table, with: cell)
        }
    }

    // MARK: - Finishing

    /// Makes links and media absolute (and `javascript:` links plain text), merges nested
    /// single-child `<div>`s, and drops `class` attributes.
    mutating func postProcess(_ content: Int) {
        fixRelativeURLs(content)
        simplifyNestedElements(content)
        for node in [content] + dom.descendants(of: content) where !dom.nodes[node].isText {
            dom.removeAttribute("class", of: node)
        }
        // The container's own class marks the page.
        let page = dom.firstElementChild(of: content)
        if page >= 0 && dom.attribute("id", of: page) == "readability-page-1" { dom.setAttribute("class", "page", of: page) }
    }

    /// The URL relative links are resolved against: the page's `<base href>` (itself resolved
    /// against the page's URL), else the page's URL.
    var documentBase: URL? {
        guard let href = head.baseHref?.trimmingCharacters(in: .whitespacesAndNewlines), !href.isEmpty else { return baseURL }
        return RelativeLink.resolve(href, against: baseURL).flatMap { URL(string: $0) } ?? baseURL
    }

    func absolute(_ reference: String) -> String {
        let base = documentBase
        if reference.hasPrefix("#") && base == baseURL { return reference }
        return RelativeLink.resolve(reference, against: base) ?? reference
    }

    mutating func fixRelativeURLs(_ content: Int) {
        for link in dom.elements(in: content, named: ["a"]) {
            guard let href = dom.attribute("href", of: link), !href.isEmpty else { continue }
            if Self.isScriptURL(href) {
                let children = dom.childNodes(of: link)
                if children.count == 1 && dom.nodes[children[0]].isText {
                    dom.replace(link, with: dom.createText(dom.nodes[children[0]].text))
                } else {
                    let span = dom.createElement("span")
                    for child in children { dom.append(child, to: span) }
                    dom.replace(link, with: span)
                }
            } else {
                dom.setAttribute("href", absolute(href), of: link)
            }
        }
        for media in dom.elements(in: content, named: ["img", "picture", "figure", "video", "audio", "source"]) {
            for name in ["src", "poster"] {
                if let value = dom.attribute(name, of: media), !value.isEmpty {
                    dom.setAttribute(name, absolute(value), of: media)
                }
            }
            if let srcset = dom.attribute("srcset", of: media), !srcset.isEmpty {
                let fixed = srcset.split(separator: ",").map { candidate -> String in
                    let parts = candidate.split(separator: " ", omittingEmptySubsequences: true)
                    guard let url = parts.first else { return String(candidate) }
                    return ([absolute(String(url))] + parts.dropFirst().map(String.init)).joined(separator: " ")
                }
                dom.setAttribute("srcset", fixed.joined(separator: ", "), of: media)
            }
        }
    }

    /// A `javascript:` URL as a browser reads it: tabs and line breaks anywhere and control
    /// characters or spaces around it ignored, any case.
    static func isScriptURL(_ href: String) -> Bool {
        let scalars = href.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
        let start = scalars.drop { $0.value <= 0x20 }
        return String(String.UnicodeScalarView(start.prefix(11))).lowercased() == "javascript:"
    }

    mutating func simplifyNestedElements(_ content: Int) {
        var node = content
        while node >= 0 {
            let name = dom.nodes[node].name
            if dom.nodes[node].parent >= 0 && (name == "div" || name == "section")
                && !(dom.attribute("id", of: node)?.hasPrefix("readability") ?? false)
            {
                if isElementWithoutContent(node) {
                    node = removeAndGetNext(node)
                    continue
                }
                if hasSingleElement(node, named: "div") || hasSingleElement(node, named: "section") {
                    let child = dom.firstElementChild(of: node)
                    for attribute in dom.nodes[node].attributes { dom.setAttribute(attribute.name, attribute.value, of: child) }
                    dom.replace(node, with: child)
                    node = child
                    continue
                }
            }
            node = dom.nextElement(after: node)
            if node >= 0 && !dom.contains(content, node) { break }
        }
    }
}
