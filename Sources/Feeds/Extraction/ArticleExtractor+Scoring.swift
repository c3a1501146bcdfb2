import Foundation

extension Extraction {
    // MARK: - Finding the article

    /// The article's container in a copy of the page, read with the strictest rules that
    /// still give enough text; else the longest of the attempts.
    mutating func grabArticle() -> (ArticleDOM, Int)? {
        let pristine = dom
        var attempts: [(dom: ArticleDOM, content: Int, length: Int)] = []
        while true {
            dom = pristine
            scores = [:]
            dataTables = []
            let (content, topCandidate, parentOfTop) = findArticle()
            let length = dom.innerTextLength(of: content)
            if length >= Self.characterThreshold {
                readDirection(topCandidate: topCandidate, parent: parentOfTop)
                return (dom, content)
            }
            attempts.append((dom, content, length))
            if flags.contains(.stripUnlikely) {
                flags.remove(.stripUnlikely)
            } else if flags.contains(.weightClasses) {
                flags.remove(.weightClasses)
            } else if flags.contains(.cleanConditionally) {
                flags.remove(.cleanConditionally)
            } else {
                guard let best = attempts.max(by: { $0.length < $1.length }), best.length > 0 else { return nil }
                dom = best.dom
                return (best.dom, best.content)
            }
        }
    }

    /// The first `dir` on the top candidate, its parent or their ancestors.
    mutating func readDirection(topCandidate: Int, parent: Int) {
        var chain = [parent, topCandidate]
        if parent >= 0 { chain += dom.ancestors(of: parent) }
        for node in chain where node >= 0 {
            if let dir = dom.attribute("dir", of: node), !dir.isEmpty {
                direction = dir
                return
            }
        }
    }

    /// One pass: prune and score the page, pick the best candidate, gather its siblings and
    /// clean the result. Returns the article's container, the top candidate and its parent.
    mutating func findArticle() -> (content: Int, top: Int, parent: Int) {
        let elementsToScore = walkAndPrune()
        let candidates = scoreElements(elementsToScore)
        let top = pickTopCandidate(candidates)
        let parent = dom.nodes[top].parent
        let content = gatherSiblings(of: top)
        prepareArticle(content)
        let page = dom.createElement(
            "div", attributes: [.init(name: "id", value: "readability-page-1"), .init(name: "class", value: "page")])
        for child in dom.childNodes(of: content) { dom.append(child, to: page) }
        dom.append(page, to: content)
        return (content, top, parent)
    }

    /// Walks the page once: removes hidden, unlikely and empty parts, takes the byline and
    /// the heading that repeats the title, turns text-only `<div>`s into paragraphs, and
    /// returns the elements to score.
    mutating func walkAndPrune() -> [Int] {
        var elementsToScore: [Int] = []
        var shouldRemoveTitleHeader = true
        var node = dom.nodes[body].parent >= 0 ? dom.nodes[body].parent : body
        while node >= 0 {
            let name = dom.nodes[node].name
            let matchString = dom.classAndID(of: node)
            if !isProbablyVisible(node) {
                node = removeAndGetNext(node)
                continue
            }
            if dom.attribute("aria-modal", of: node) == "true" && dom.attribute("role", of: node) == "dialog" {
                node = removeAndGetNext(node)
                continue
            }
            if byline == nil && metadata.byline == nil && isValidByline(node, matchString: matchString) {
                byline = bylineText(node)
                node = removeAndGetNext(node)
                continue
            }
            if shouldRemoveTitleHeader && headerDuplicatesTitle(node) {
                shouldRemoveTitleHeader = false
                node = removeAndGetNext(node)
                continue
            }
            if flags.contains(.stripUnlikely) && node != body && name != "html" {
                if ClassPatterns.isUnlikelyCandidate(matchString) && !ClassPatterns.isMaybeCandidate(matchString)
                    && !hasAncestor(node, named: "table") && !hasAncestor(node, named: "code") && name != "body" && name != "a"
                {
                    node = removeAndGetNext(node)
                    continue
                }
                if let role = dom.attribute("role", of: node), Self.unlikelyRoles.contains(role) {
                    node = removeAndGetNext(node)
                    continue
                }
            }
            if ["div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"].contains(name) && isElementWithoutContent(node) {
                node = removeAndGetNext(node)
                continue
            }
            if Self.tagsToScore.contains(name) { elementsToScore.append(node) }
            if name == "div" {
                wrapPhrasingRuns(in: node)
                if hasSingleElement(node, named: "p") && linkDensity(node) < 0.25 {
                    let paragraph = dom.firstElementChild(of: node)
                    dom.replace(node, with: paragraph)
                    node = paragraph
                    elementsToScore.append(node)
                } else if !hasChildBlockElement(node) {
                    dom.nodes[node].name = "p"
                    elementsToScore.append(node)
                }
            }
            node = dom.nextElement(after: node)
        }
        return elementsToScore
    }

    /// The byline's text: an element inside it with an `itemprop` naming a name, else all of it.
    func bylineText(_ node: Int) -> String {
        let named = dom.descendants(of: node).first {
            !dom.nodes[$0].isText && (dom.attribute("itemprop", of: $0)?.contains("name") ?? false)
        }
        return dom.textContent(of: named ?? node).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Puts each run of phrasing content directly inside the `<div>` into a `<p>`.
    mutating func wrapPhrasingRuns(in div: Int) {
        var child = dom.nodes[div].firstChild
        while child >= 0 {
            var next = dom.nodes[child].next
            if isPhrasingContent(child) {
                var run: [Int] = []
                var current = child
                while current >= 0 && isPhrasingContent(current) {
                    run.append(current)
                    current = dom.nodes[current].next
                }
                next = current
                while let first = run.first, isWhitespace(first) {
                    dom.detach(first)
                    run.removeFirst()
                }
                while let last = run.last, isWhitespace(last) {
                    dom.detach(last)
                    run.removeLast()
                }
                if !run.isEmpty {
                    let paragraph = dom.createElement("p")
                    dom.insert(paragraph, into: div, before: next)
                    for item in run { dom.append(item, to: paragraph) }
                }
            }
            child = next
        }
    }

    /// Gives each scored element's score to its five nearest ancestors (less the farther
    /// up), and returns the ancestors so scored, each multiplied by its share of non-link text.
    mutating func scoreElements(_ elements: [Int]) -> [Int] {
        var candidates: [Int] = []
        for element in elements {
            guard dom.nodes[element].parent >= 0 else { continue }
            let text = dom.innerText(of: element)
            let length = text.utf16.count
            guard length >= 25 else { continue }
            let ancestors = dom.ancestors(of: element, maxDepth: 5)
            guard !ancestors.isEmpty else { continue }
            let commas = text.unicodeScalars.count { ClassPatterns.commas.contains($0) }
            let score = 1 + Double(commas + 1) + Double(min(length / 100, 3))
            for (level, ancestor) in ancestors.enumerated() {
                guard dom.nodes[ancestor].parent >= 0 else { continue }
                if scores[ancestor] == nil {
                    initializeScore(ancestor)
                    candidates.append(ancestor)
                }
                let divider = level == 0 ? 1.0 : level == 1 ? 2.0 : Double(level * 3)
                scores[ancestor, default: 0] += score / divider
            }
        }
        for candidate in candidates {
            scores[candidate] = (scores[candidate] ?? 0) * (1 - linkDensity(candidate))
        }
        return candidates
    }

    /// The best candidate, moved up to a common ancestor of close runners-up or to a parent
    /// that scores better; a new `<div>` holding the whole body when nothing scored.
    mutating func pickTopCandidate(_ candidates: [Int]) -> Int {
        var top: [Int] = []
        for candidate in candidates {
            let score = scores[candidate] ?? 0
            if let index = top.firstIndex(where: { score > (scores[$0] ?? 0) }) {
                top.insert(candidate, at: index)
                if top.count > Self.topCandidateCount { top.removeLast() }
            } else if top.count < Self.topCandidateCount {
                top.append(candidate)
            }
        }
        guard var topCandidate = top.first, dom.nodes[topCandidate].name != "body" else {
            let container = dom.createElement("div")
            for child in dom.childNodes(of: body) { dom.append(child, to: container) }
            dom.append(container, to: body)
            initializeScore(container)
            return container
        }
        let topScore = scores[topCandidate] ?? 0
        let alternatives = top.dropFirst().filter { topScore != 0 && (scores[$0] ?? 0) / topScore >= 0.75 }.map {
            Set(dom.ancestors(of: $0))
        }
        let minimumTopCandidates = 3
        if alternatives.count >= minimumTopCandidates {
            var parent = dom.nodes[topCandidate].parent
            while parent >= 0 && dom.nodes[parent].name != "body" {
                if alternatives.count(where: { $0.contains(parent) }) >= minimumTopCandidates {
                    topCandidate = parent
                    break
                }
                parent = dom.nodes[parent].parent
            }
        }
        if scores[topCandidate] == nil { initializeScore(topCandidate) }
        var parent = dom.nodes[topCandidate].parent
        var lastScore = scores[topCandidate] ?? 0
        let threshold = lastScore / 3
        while parent >= 0 && dom.nodes[parent].name != "body" {
            guard let parentScore = scores[parent] else {
                parent = dom.nodes[parent].parent
                continue
            }
            if parentScore < threshold { break }
            if parentScore > lastScore {
                topCandidate = parent
                break
            }
            lastScore = parentScore
            parent = dom.nodes[parent].parent
        }
        parent = dom.nodes[topCandidate].parent
        while parent >= 0 && dom.nodes[parent].name != "body" && dom.elementChildren(of: parent).count == 1 {
            topCandidate = parent
            parent = dom.nodes[topCandidate].parent
        }
        if scores[topCandidate] == nil { initializeScore(topCandidate) }
        return topCandidate
    }

    /// A new `<div>` holding the top candidate and those of its siblings that look like
    /// part of the same article.
    mutating func gatherSiblings(of topCandidate: Int) -> Int {
        let content = dom.createElement("div")
        let topScore = scores[topCandidate] ?? 0
        let threshold = max(10, topScore * 0.2)
        let parent = dom.nodes[topCandidate].parent
        guard parent >= 0 else {
            dom.append(topCandidate, to: content)
            return content
        }
        let topClass = dom.attribute("class", of: topCandidate) ?? ""
        for sibling in dom.elementChildren(of: parent) {
            var append = sibling == topCandidate
            if !append {
                let bonus = !topClass.isEmpty && dom.attribute("class", of: sibling) == topClass ? topScore * 0.2 : 0
                if let score = scores[sibling], score + bonus >= threshold {
                    append = true
                } else if dom.nodes[sibling].name == "p" {
                    let density = linkDensity(sibling)
                    let text = dom.innerText(of: sibling)
                    let length = text.utf16.count
                    if length > 80 && density < 0.25 {
                        append = true
                    } else if length < 80 && length > 0 && density == 0 && Self.hasSentenceEnd(text) {
                        append = true
                    }
                }
            }
            guard append else { continue }
            if !["div", "article", "section", "p", "ol", "ul"].contains(dom.nodes[sibling].name) {
                dom.nodes[sibling].name = "div"
            }
            dom.append(sibling, to: content)
        }
        return content
    }

    /// A full stop followed by a space or the end.
    static func hasSentenceEnd(_ text: String) -> Bool {
        text.hasSuffix(".") || text.contains(". ")
    }
}
