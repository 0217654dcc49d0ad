// recast_regions_driver.cpp - runs Recast's partition stage (rcBuildDistanceField,
// rcBuildRegions, rcBuildRegionsMonotone) for tests/levels/test_level_regions_recast.py.
// Written for navcore's tests; not part of recastnavigation. Compiled with the peer's
// Recast/Source/*.cpp (../shared/peers/recast).
//
//   recast_regions_driver level TRIS_IN CHF_OUT REGIONS_OUT
//       triangles (int32 nverts, int32 ntris, float32 verts[3*nverts], int32 tris[3*ntris])
//       -> the compact heightfield RecastDemo's solo build makes at its default settings
//       (rasterized, filtered, compacted, eroded), then its regions (border 0, 64, 400).
//   recast_regions_driver chf CHF_IN REGIONS_OUT BORDER MIN_AREA MERGE_AREA
//       the regions of a compact heightfield given in the file.
//
// Compact heightfield file, all int32: width height spans walkable_height walkable_climb
// border_size, cell_index[w*h], cell_count[w*h], y[n], h[n], neighbors[4n] (absolute span
// indices, -1 for none), area[n]. Regions file, int32: max_distance, dist[n],
// watershed max_regions, watershed region[n], monotone max_regions, monotone region[n].

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "Recast.h"
#include "RecastAlloc.h"

static bool readInts(FILE* f, std::vector<int>& v, size_t n)
{
	v.resize(n);
	return n == 0 || fread(v.data(), 4, n, f) == n;
}

static void writeInts(FILE* f, const std::vector<int>& v)
{
	if (!v.empty()) fwrite(v.data(), 4, v.size(), f);
}

static bool dumpChf(const rcCompactHeightfield& chf, const char* path)
{
	FILE* f = fopen(path, "wb");
	if (!f) return false;
	const int w = chf.width, h = chf.height, n = chf.spanCount;
	std::vector<int> header = {w, h, n, chf.walkableHeight, chf.walkableClimb, chf.borderSize};
	std::vector<int> index(w * h), count(w * h), y(n), clear(n), nbr(4 * n), area(n);
	for (int z = 0; z < h; ++z)
		for (int x = 0; x < w; ++x)
		{
			const rcCompactCell& c = chf.cells[x + z * w];
			index[x + z * w] = (int)c.index;
			count[x + z * w] = (int)c.count;
			for (int i = (int)c.index; i < (int)(c.index + c.count); ++i)
			{
				const rcCompactSpan& s = chf.spans[i];
				y[i] = s.y;
				clear[i] = s.h;
				area[i] = chf.areas[i];
				for (int d = 0; d < 4; ++d)
				{
					if (rcGetCon(s, d) == RC_NOT_CONNECTED) { nbr[4 * i + d] = -1; continue; }
					const int nx = x + rcGetDirOffsetX(d), nz = z + rcGetDirOffsetY(d);
					nbr[4 * i + d] = (int)chf.cells[nx + nz * w].index + rcGetCon(s, d);
				}
			}
		}
	writeInts(f, header); writeInts(f, index); writeInts(f, count); writeInts(f, y);
	writeInts(f, clear); writeInts(f, nbr); writeInts(f, area);
	fclose(f);
	return true;
}

static bool loadChf(const char* path, rcCompactHeightfield& chf)
{
	FILE* f = fopen(path, "rb");
	if (!f) return false;
	std::vector<int> header, index, count, y, clear, nbr, area;
	bool ok = readInts(f, header, 6);
	const int w = ok ? header[0] : 0, h = ok ? header[1] : 0, n = ok ? header[2] : 0;
	ok = ok && readInts(f, index, w * h) && readInts(f, count, w * h) && readInts(f, y, n)
		&& readInts(f, clear, n) && readInts(f, nbr, 4 * n) && readInts(f, area, n);
	fclose(f);
	if (!ok) return false;
	chf.width = w; chf.height = h; chf.spanCount = n;
	chf.walkableHeight = header[3]; chf.walkableClimb = header[4]; chf.borderSize = header[5];
	chf.cs = 0.3f; chf.ch = 0.2f;
	chf.cells = (rcCompactCell*)rcAlloc(sizeof(rcCompactCell) * (w * h + 1), RC_ALLOC_PERM);
	chf.spans = (rcCompactSpan*)rcAlloc(sizeof(rcCompactSpan) * (n + 1), RC_ALLOC_PERM);
	chf.areas = (unsigned char*)rcAlloc(n + 1, RC_ALLOC_PERM);
	for (int c = 0; c < w * h; ++c) { chf.cells[c].index = index[c]; chf.cells[c].count = count[c]; }
	for (int c = 0; c < w * h; ++c)
		for (int i = index[c]; i < index[c] + count[c]; ++i)
		{
			rcCompactSpan& s = chf.spans[i];
			s.y = (unsigned short)y[i];
			s.reg = 0;
			s.h = (unsigned int)std::min(clear[i], 255);
			s.con = 0;
			chf.areas[i] = (unsigned char)area[i];
			const int x = c % w, z = c / w;
			for (int d = 0; d < 4; ++d)
			{
				if (nbr[4 * i + d] < 0) { rcSetCon(s, d, RC_NOT_CONNECTED); continue; }
				const int nx = x + rcGetDirOffsetX(d), nz = z + rcGetDirOffsetY(d);
				rcSetCon(s, d, nbr[4 * i + d] - (int)chf.cells[nx + nz * w].index);
			}
		}
	return true;
}

static bool runRegions(rcContext* ctx, rcCompactHeightfield& chf, int border, int minArea,
                       int mergeArea, const char* path)
{
	const int n = chf.spanCount;
	std::vector<int> dist(n), watershed(n), monotone(n);
	if (!rcBuildDistanceField(ctx, chf)) return false;
	const int maxDistance = chf.maxDistance;
	if (!rcBuildRegions(ctx, chf, border, minArea, mergeArea)) return false;
	const int watershedMax = chf.maxRegions;
	for (int i = 0; i < n; ++i) { dist[i] = chf.dist[i]; watershed[i] = chf.spans[i].reg; }
	if (!rcBuildRegionsMonotone(ctx, chf, border, minArea, mergeArea)) return false;
	const int monotoneMax = chf.maxRegions;
	for (int i = 0; i < n; ++i) monotone[i] = chf.spans[i].reg;
	FILE* f = fopen(path, "wb");
	if (!f) return false;
	fwrite(&maxDistance, 4, 1, f); writeInts(f, dist);
	fwrite(&watershedMax, 4, 1, f); writeInts(f, watershed);
	fwrite(&monotoneMax, 4, 1, f); writeInts(f, monotone);
	fclose(f);
	return true;
}

// RecastDemo's Sample_SoloMesh::build() up to the eroded compact heightfield, at its defaults.
static bool buildLevel(rcContext* ctx, const char* trisPath, rcCompactHeightfield& chf)
{
	FILE* f = fopen(trisPath, "rb");
	if (!f) return false;
	int counts[2];
	if (fread(counts, 4, 2, f) != 2) { fclose(f); return false; }
	std::vector<float> verts(3 * counts[0]);
	std::vector<int> tris;
	const bool ok = fread(verts.data(), 4, verts.size(), f) == verts.size()
		&& readInts(f, tris, 3 * counts[1]);
	fclose(f);
	if (!ok) return false;
	const int nverts = counts[0], ntris = counts[1];
	rcConfig cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.cs = 0.3f;
	cfg.ch = 0.2f;
	cfg.walkableSlopeAngle = 45.0f;
	cfg.walkableHeight = (int)ceilf(2.0f / cfg.ch);
	cfg.walkableClimb = (int)floorf(0.9f / cfg.ch);
	cfg.walkableRadius = (int)ceilf(0.6f / cfg.cs);
	rcCalcBounds(verts.data(), nverts, cfg.bmin, cfg.bmax);
	rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);
	rcHeightfield* hf = rcAllocHeightfield();
	if (!hf || !rcCreateHeightfield(ctx, *hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch))
		return false;
	std::vector<unsigned char> areas(ntris > 0 ? ntris : 1, 0);
	rcMarkWalkableTriangles(ctx, cfg.walkableSlopeAngle, verts.data(), nverts, tris.data(), ntris,
	                        areas.data());
	if (!rcRasterizeTriangles(ctx, verts.data(), nverts, tris.data(), areas.data(), ntris, *hf,
	                          cfg.walkableClimb))
		return false;
	rcFilterLowHangingWalkableObstacles(ctx, cfg.walkableClimb, *hf);
	rcFilterLedgeSpans(ctx, cfg.walkableHeight, cfg.walkableClimb, *hf);
	rcFilterWalkableLowHeightSpans(ctx, cfg.walkableHeight, *hf);
	const bool built = rcBuildCompactHeightfield(ctx, cfg.walkableHeight, cfg.walkableClimb, *hf, chf)
		&& rcErodeWalkableArea(ctx, cfg.walkableRadius, chf);
	rcFreeHeightField(hf);
	return built;
}

int main(int argc, char** argv)
{
	rcContext ctx(false);
	rcCompactHeightfield chf;
	if (argc == 5 && !strcmp(argv[1], "level"))
	{
		if (!buildLevel(&ctx, argv[2], chf) || !dumpChf(chf, argv[3])) return 1;
		return runRegions(&ctx, chf, 0, 64, 400, argv[4]) ? 0 : 1;
	}
	if (argc == 7 && !strcmp(argv[1], "chf"))
	{
		if (!loadChf(argv[2], chf)) return 1;
		return runRegions(&ctx, chf, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), argv[3]) ? 0 : 1;
	}
	fprintf(stderr, "usage: recast_regions_driver level TRIS CHF_OUT REGIONS_OUT\n"
	                "       recast_regions_driver chf CHF_IN REGIONS_OUT BORDER MIN_AREA MERGE_AREA\n");
	return 2;
}
