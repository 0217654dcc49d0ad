// Runs Recast's rcBuildContours + rcBuildPolyMesh on any compact heightfield (one made in Python,
// say) for a differential check of navcore_levels' contour and polygon stages.
// Build: R=/work/shared/peers/recast; g++ -O1 -DRC_DISABLE_ASSERTS -I$R/Recast/Include \
//          recast_replay.cpp $R/Recast/Source/*.cpp -o recast_replay
// Input in DIR, raw int32: in_hdr (width, height, border size, max region, span count, max edge
// length, max error x 1000, vertices per polygon), in_cells (index, count per cell), in_spans
// (y, region, area, con0..con3 per span: the index within the neighbour cell, -1 none).
// Output in DIR: the same files as recast_dump.cpp's contours and mesh.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "Recast.h"
#include "RecastAlloc.h"
static std::vector<int> rdv(const std::string& p) {
	std::vector<int> v; FILE* f = fopen(p.c_str(), "rb"); if (!f) return v;
	int x; while (fread(&x, 4, 1, f) == 1) v.push_back(x); fclose(f); return v;
}
static void wr(const std::string& p, const std::vector<int>& v) {
	FILE* f = fopen(p.c_str(), "wb"); fwrite(v.data(), 4, v.size(), f); fclose(f);
}
int main(int argc, char** argv) {
	std::string d = argv[1];
	std::vector<int> hdr = rdv(d + "/in_hdr.i32"), cells = rdv(d + "/in_cells.i32"), spans = rdv(d + "/in_spans.i32");
	int w = hdr[0], h = hdr[1], border = hdr[2], maxReg = hdr[3], ns = hdr[4], maxEdge = hdr[5]; float err = hdr[6] / 1000.0f; int nvp = hdr[7];
	rcCompactHeightfield chf;
	chf.width = w; chf.height = h; chf.borderSize = border; chf.spanCount = ns; chf.maxRegions = (unsigned short)maxReg;
	chf.walkableHeight = 10; chf.walkableClimb = 4; chf.cs = 0.3f; chf.ch = 0.2f;
	chf.bmin[0] = chf.bmin[1] = chf.bmin[2] = 0; chf.bmax[0] = w * 0.3f; chf.bmax[1] = 100; chf.bmax[2] = h * 0.3f;
	chf.cells = (rcCompactCell*)rcAlloc(sizeof(rcCompactCell) * w * h, RC_ALLOC_PERM);
	chf.spans = (rcCompactSpan*)rcAlloc(sizeof(rcCompactSpan) * (ns ? ns : 1), RC_ALLOC_PERM);
	chf.areas = (unsigned char*)rcAlloc(ns ? ns : 1, RC_ALLOC_PERM);
	for (int i = 0; i < w * h; ++i) { chf.cells[i].index = cells[2 * i]; chf.cells[i].count = cells[2 * i + 1]; }
	for (int i = 0; i < ns; ++i) {
		rcCompactSpan& s = chf.spans[i]; memset(&s, 0, sizeof(s));
		s.y = (unsigned short)spans[7 * i]; s.reg = (unsigned short)spans[7 * i + 1]; chf.areas[i] = (unsigned char)spans[7 * i + 2];
		for (int dd = 0; dd < 4; ++dd) rcSetCon(s, dd, spans[7 * i + 3 + dd] < 0 ? RC_NOT_CONNECTED : spans[7 * i + 3 + dd]);
	}
	rcContext ctx(false);
	rcContourSet cset; rcPolyMesh m;
	rcBuildContours(&ctx, chf, err, maxEdge, cset);
	rcBuildPolyMesh(&ctx, cset, nvp, m);
	std::vector<int> ch, cv, crv;
	for (int i = 0; i < cset.nconts; ++i) {
		rcContour& k = cset.conts[i];
		ch.push_back(k.nverts); ch.push_back(k.nrverts); ch.push_back(k.reg); ch.push_back(k.area);
		for (int j = 0; j < k.nverts * 4; ++j) cv.push_back(k.verts[j]);
		for (int j = 0; j < k.nrverts * 4; ++j) crv.push_back(k.rverts[j]);
	}
	wr(d + "/conts.i32", ch); wr(d + "/cverts.i32", cv); wr(d + "/crverts.i32", crv);
	std::vector<int> mv, mp, mr;
	for (int i = 0; i < m.nverts * 3; ++i) mv.push_back(m.verts[i]);
	for (int i = 0; i < m.npolys * m.nvp * 2; ++i) mp.push_back(m.polys[i] == 0xffff ? -1 : m.polys[i]);
	for (int i = 0; i < m.npolys; ++i) { mr.push_back(m.regs[i]); mr.push_back(m.areas[i]); }
	wr(d + "/mverts.i32", mv); wr(d + "/mpolys.i32", mp); wr(d + "/mregs.i32", mr);
	return 0;
}
