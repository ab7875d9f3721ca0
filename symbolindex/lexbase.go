package symbolindex

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// lexPart is one run of a term's postings in a mapped segment:
// segs[seg].docs[off:off+n] and the same range of its tfs.
type lexPart struct {
	seg, off, n uint32
}

// lexSeg is the lexical part of one mapped segment (persist.go): the
// postings of documents lo..lo+n-1, read in place. docs and tfs hold every
// term's postings one after the other, in one of two forms: wide (doc ids
// and packed frequencies as uint32) or, when the segment has at most 65,536
// documents and as many distinct packed frequencies, narrow: docs16 the
// doc id minus lo, tf16 an index into tfTab, 4 bytes a posting instead of
// 8. dtOff and dtTerms list each
// document's distinct terms (local term ids, dtTerms[dtOff[i]:dtOff[i+1]]
// for document lo+i), which gid maps to the index's term ids. A segment is
// never modified: removing one of its documents clears inBase and lowers
// the term counts.
type lexSeg struct {
	lo, n   uint32
	docs    []uint32
	tfs     []uint32
	docs16  []uint16
	tf16    []uint16
	tfTab   []uint32
	dtOff   []uint32
	dtTerms []uint32
	gid     []uint32 // local term id → term id
	gate    *segGate // guards docs and tfs (lazy.go)
	dtGate  *segGate // guards dtOff and dtTerms
}

// lexSegData is a segment's lexical data as persist.go reads it. Terms are
// sorted and distinct; termOff (len(Terms)+1 offsets) delimits each term's
// postings in Docs and TFs (wide) or Docs16 and TF16 (narrow, with TFTab);
// Live says which of the n documents exist.
type lexSegData struct {
	Lo uint32
	// NTerms is the number of terms. Terms are read only when the cache
	// has no usable dictionary; with one, Gid maps each local term to the
	// index's term id (its position in the dictionary) and the segment's
	// own terms are not read.
	NTerms  int
	Terms   []string
	Gid     []uint32
	TermOff []uint32
	Docs    []uint32
	TFs     []uint32
	Docs16  []uint16
	TF16    []uint16
	TFTab   []uint32
	Lens    [][NumFields]uint16
	Live    []byte
	DTOff   []uint32
	DTTerms []uint32
	gate    *segGate // postings
	dtGate  *segGate // documents' terms
}

// check reports the first inconsistency that would make the segment unsafe
// to read: offsets out of order or out of range, unsorted terms or
// postings, documents outside the segment.
func (d *lexSegData) check() error {
	if err := d.checkHead(); err != nil {
		return err
	}
	if err := d.checkPostings(); err != nil {
		return err
	}
	return d.checkDocTerms()
}

// checkHead is the part of check that reads neither the postings nor the
// documents' term lists (the body of a segment), only their lengths.
func (d *lexSegData) checkHead() error {
	n := len(d.Live)
	np := len(d.Docs)
	narrow := d.TFTab != nil
	if narrow {
		np = len(d.Docs16)
		if len(d.Docs) != 0 || len(d.TFs) != 0 || len(d.TF16) != np || n > 1<<16 {
			return fmt.Errorf("lexical segment: narrow postings malformed")
		}
		for _, tf := range d.TFTab {
			if tf == 0 {
				return fmt.Errorf("lexical segment: zero frequency in the table")
			}
		}
	} else if len(d.Docs16) != 0 || len(d.TF16) != 0 || len(d.TFs) != np {
		return fmt.Errorf("lexical segment: wide postings malformed")
	}
	if len(d.Lens) != n || len(d.DTOff) != n+1 || len(d.TermOff) != d.NTerms+1 {
		return fmt.Errorf("lexical segment: section lengths disagree")
	}
	if uint64(d.Lo)+uint64(n) > lexMaxDocs {
		return fmt.Errorf("lexical segment: documents %d..%d out of range", d.Lo, uint64(d.Lo)+uint64(n))
	}
	if d.TermOff[0] != 0 || d.TermOff[d.NTerms] != uint32(np) {
		return fmt.Errorf("lexical segment: postings offsets do not cover the postings")
	}
	for i := range d.NTerms {
		a, b := d.TermOff[i], d.TermOff[i+1]
		if a >= b || b > uint32(np) {
			return fmt.Errorf("lexical segment: term %d: bad postings range", i)
		}
	}
	if len(d.DTTerms) != np {
		return fmt.Errorf("lexical segment: document terms do not match the postings")
	}
	for i := 0; i < n; i++ {
		if d.Live[i] > 1 {
			return fmt.Errorf("lexical segment: document %d: bad term list", d.Lo+uint32(i))
		}
	}
	return nil
}

// checkPostings is the part of check that reads the postings, given
// checkHead passed.
func (d *lexSegData) checkPostings() error {
	n := len(d.Live)
	narrow := d.TFTab != nil
	for _, t := range d.TF16 {
		if int(t) >= len(d.TFTab) {
			return fmt.Errorf("lexical segment: frequency index %d out of range", t)
		}
	}
	for i := range d.NTerms {
		a, b := d.TermOff[i], d.TermOff[i+1]
		prev := int64(d.Lo) - 1
		for j := a; j < b; j++ {
			var doc, tf uint32
			if narrow {
				doc, tf = d.Lo+uint32(d.Docs16[j]), 1
			} else {
				doc, tf = d.Docs[j], d.TFs[j]
			}
			if int64(doc) <= prev || doc >= d.Lo+uint32(n) || d.Live[doc-d.Lo] != 1 || tf == 0 {
				return fmt.Errorf("lexical segment: term %d: bad posting %d", i, doc)
			}
			prev = int64(doc)
		}
	}
	return nil
}

// checkDocTerms is the part of check that reads the documents' term
// lists, given checkHead passed.
func (d *lexSegData) checkDocTerms() error {
	n := len(d.Live)
	if d.DTOff[0] != 0 || d.DTOff[n] != uint32(len(d.DTTerms)) {
		return fmt.Errorf("lexical segment: document terms do not match the postings")
	}
	for i := 0; i < n; i++ {
		if d.DTOff[i] > d.DTOff[i+1] || d.Live[i] > 1 || d.Live[i] == 0 && d.DTOff[i] != d.DTOff[i+1] {
			return fmt.Errorf("lexical segment: document %d: bad term list", d.Lo+uint32(i))
		}
	}
	for _, t := range d.DTTerms {
		if int(t) >= d.NTerms {
			return fmt.Errorf("lexical segment: term id %d out of range", t)
		}
	}
	return nil
}

// addSegments adds the documents of checked segments, reading their
// postings in place. It is called once, on an empty index: each term's
// parts are laid out contiguously. The terms are dict, a cache's
// dictionary (sorted, distinct; each segment's Gid maps its local ids to
// it), or when dict is nil the segments' own terms (Terms), merged.
func (l *Lexical) addSegments(ds []*lexSegData, dict []string) {
	var count []uint32 // parts per term id
	if dict != nil {
		count = make([]uint32, len(dict))
		for _, d := range ds {
			for _, id := range d.Gid {
				count[id]++
			}
			l.segs = append(l.segs, lexSeg{gid: d.Gid})
		}
		l.setBaseTerms(dict)
	} else {
		count = l.mergeTerms(ds)
	}
	for k, d := range ds {
		sg := &l.segs[k]
		*sg = lexSeg{lo: d.Lo, n: uint32(len(d.Live)), docs: d.Docs, tfs: d.TFs, docs16: d.Docs16, tf16: d.TF16, tfTab: d.TFTab,
			dtOff: d.DTOff, dtTerms: d.DTTerms, gid: sg.gid, gate: d.gate, dtGate: d.dtGate}
	}
	// Lay the parts out term by term, in segment order.
	total := uint32(len(l.parts))
	for id, c := range count {
		if c > 0 {
			p := l.post.own(uint32(id), l.cow)
			p.first, p.nparts = total, 0
			total += c
		}
	}
	l.parts = slices.Grow(l.parts, int(total)-len(l.parts))[:total]
	l.layParts(ds, len(count))
	for _, d := range ds {
		n := uint32(len(d.Live))
		end := int(d.Lo + n)
		l.growDocs(end)
		if end > len(l.inBase) {
			l.inBase = slices.Grow(l.inBase, end-len(l.inBase))[:end]
		}
		for i := uint32(0); i < n; i++ {
			if d.Live[i] == 0 {
				continue
			}
			doc := d.Lo + i
			l.live[doc] = true
			l.inBase[doc] = true
			l.lens[doc] = d.Lens[i]
			l.n++
			for f := range NumFields {
				l.sum[f] += uint64(d.Lens[i][f])
			}
		}
	}
}

// layParts writes the parts of the segments ds (l.segs, in order) into
// each term's run of l.parts (nterms terms), in segment order. It goes a
// block of term ids at a time, every segment's terms of the block
// (each segment's ids increase): the parts and postings a block writes
// stay in the processor's cache, where a segment at a time would write
// all over them (at 1M symbols, 2M parts of 12 bytes a lexical index).
func (l *Lexical) layParts(ds []*lexSegData, nterms int) {
	const block = 4096
	next := make([]int, len(ds)) // each segment's first local term not laid out
	for hi := block; hi-block < nterms; hi += block {
		for k, d := range ds {
			si := uint32(k)
			gid := l.segs[si].gid
			i := next[k]
			for ; i < len(gid) && int(gid[i]) < hi; i++ {
				p := l.post.own(gid[i], l.cow)
				a, b := d.TermOff[i], d.TermOff[i+1]
				l.parts[p.first+p.nparts] = lexPart{seg: si, off: a, n: b - a}
				p.nparts++
				p.nbase += b - a
			}
			next[k] = i
		}
	}
}

// mergeTerms gives the terms of the segments ds (each sorted and
// distinct) to an empty index, ids in sorted order, appends a lexSeg with
// each one's local → global ids, and returns the number of segments that
// hold each term.
func (l *Lexical) mergeTerms(ds []*lexSegData) []uint32 {
	lists := make([][]string, len(ds))
	for k, d := range ds {
		lists[k] = d.Terms
	}
	terms, gids := mergeSortedTerms(lists)
	count := make([]uint32, len(terms))
	for _, g := range gids {
		for _, id := range g {
			count[id]++
		}
	}
	l.setBaseTerms(terms)
	for k := range ds {
		l.segs = append(l.segs, lexSeg{gid: gids[k]})
	}
	return count
}

// setBaseTerms makes terms, sorted and distinct, the terms of an empty
// index, with ids in their order (baseTerms).
func (l *Lexical) setBaseTerms(terms []string) {
	l.baseTerms = terms
	l.strs = cowArrOf(terms, l.cow)
	l.post = cowArrMake[lexPostings](len(terms), l.cow)
	l.mark = make([]uint32, len(terms))
}

// mergeSortedTerms merges sorted lists of distinct terms into one, two
// halves at a time (one comparison a term a level), and returns it with
// each term's position in it, by list.
func mergeSortedTerms(lists [][]string) ([]string, [][]uint32) {
	switch len(lists) {
	case 0:
		return nil, nil
	case 1:
		ids := make([]uint32, len(lists[0]))
		for i := range ids {
			ids[i] = uint32(i)
		}
		return lists[0], [][]uint32{ids}
	}
	h := len(lists) / 2
	a, am := mergeSortedTerms(lists[:h])
	b, bm := mergeSortedTerms(lists[h:])
	out := make([]string, 0, max(len(a), len(b)))
	ai, bi := make([]uint32, len(a)), make([]uint32, len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			ai[i] = uint32(len(out))
			out = append(out, a[i])
			i++
		case c > 0:
			bi[j] = uint32(len(out))
			out = append(out, b[j])
			j++
		default:
			ai[i], bi[j] = uint32(len(out)), uint32(len(out))
			out = append(out, a[i])
			i++
			j++
		}
	}
	for ; i < len(a); i++ {
		ai[i] = uint32(len(out))
		out = append(out, a[i])
	}
	for ; j < len(b); j++ {
		bi[j] = uint32(len(out))
		out = append(out, b[j])
	}
	for _, m := range am {
		for k, x := range m {
			m[k] = ai[x]
		}
	}
	for _, m := range bm {
		for k, x := range m {
			m[k] = bi[x]
		}
	}
	return slices.Clip(out), append(am, bm...)
}

// isBase reports whether doc is live as its segment holds it.
func (l *Lexical) isBase(doc uint32) bool {
	return int(doc) < len(l.inBase) && l.inBase[doc]
}

// segOf returns the segment holding doc and its index.
func (l *Lexical) segOf(doc uint32) (*lexSeg, uint32) {
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].lo+l.segs[i].n > doc })
	return &l.segs[i], uint32(i)
}

// removeBase takes a segment's document out of the counts; its postings
// stay in the segment and Search skips them.
func (l *Lexical) removeBase(doc uint32) {
	sg, _ := l.segOf(doc)
	i := doc - sg.lo
	if !sg.dtGate.open() {
		// A damaged segment: its terms are unknown, their counts stay.
		l.inBase[doc] = false
		l.ndead++
		return
	}
	for _, lt := range sg.dtTerms[sg.dtOff[i]:sg.dtOff[i+1]] {
		id := sg.gid[lt]
		l.post.own(id, l.cow).nbase--
		l.freeIfEmpty(id)
	}
	l.inBase = cowOwn(l.inBase, &l.st.inBase, l.cow)
	l.inBase[doc] = false
	l.ndead++
}

// eachTerm calls fn with each distinct term of a live doc and its packed
// frequencies.
func (l *Lexical) eachTerm(doc uint32, fn func(id, tf uint32)) {
	if l.isBase(doc) {
		sg, si := l.segOf(doc)
		if !sg.dtGate.open() || !sg.gate.open() {
			return // a damaged segment: nothing read from it
		}
		i := doc - sg.lo
		for _, lt := range sg.dtTerms[sg.dtOff[i]:sg.dtOff[i+1]] {
			id := sg.gid[lt]
			p := l.post.ref(id)
			for _, pt := range l.parts[p.first : p.first+p.nparts] {
				if pt.seg == si {
					fn(id, sg.tf(pt, doc))
					break
				}
			}
		}
		return
	}
	for _, id := range l.docTerms[doc] {
		p := l.heapOf(id)
		j, _ := slices.BinarySearch(p.docs, doc)
		fn(id, p.tfs[j])
	}
}

// tf returns the packed frequencies of doc in the run pt, which holds it.
func (sg *lexSeg) tf(pt lexPart, doc uint32) uint32 {
	if sg.tfTab != nil {
		j, _ := slices.BinarySearch(sg.docs16[pt.off:pt.off+pt.n], uint16(doc-sg.lo))
		return sg.tfTab[sg.tf16[pt.off+uint32(j)]]
	}
	j, _ := slices.BinarySearch(sg.docs[pt.off:pt.off+pt.n], doc)
	return sg.tfs[pt.off+uint32(j)]
}

// accumulate16 is accumulate for a run of narrow postings.
func (l *Lexical) accumulate16(sg *lexSeg, pt lexPart, wq float32, nm *lexNorm, buf *SearchBuffer, inBase []bool) {
	k1 := l.p.K1
	k1p1 := wq * (k1 + 1)
	docs := sg.docs16[pt.off : pt.off+pt.n]
	tfi := sg.tf16[pt.off : pt.off+pt.n]
	tfi = tfi[:len(docs)]
	tab := sg.tfTab
	lo := sg.lo
	lens := l.lens
	score := buf.score[:len(lens)]
	matched := buf.matched[:len(lens)]
	for j, d16 := range docs {
		d := lo + uint32(d16)
		if inBase != nil && !inBase[d] {
			continue
		}
		x := nm.mix(tab[tfi[j]], &lens[d])
		if matched[d] == 0 {
			buf.touched = append(buf.touched, d)
		}
		matched[d]++
		score[d] += x * k1p1 / (x + k1)
	}
}

// trim drops the spare capacity that adding the segments' postings leaves
// in parts: call it once the last segment is added (mark is made to the
// dictionary's length by setBaseTerms).
func (l *Lexical) trim() {
	l.parts = slices.Clip(l.parts)
}
