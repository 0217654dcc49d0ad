// Dumps Recast's compact heightfield (after regions), contours and polygon mesh as raw int32
// arrays, for comparing navcore_levels' contour and polygon stages with Recast's.
// Written for these tests; uses recast_bench.cpp (../../../../shared/peers/recast) for loading and
// settings. Build next to recast_bench.cpp's sources:
//   R=/work/shared/peers/recast; g++ -O2 -DNDEBUG -DRC_DISABLE_ASSERTS -I$R -I$R/Recast/Include \
//     -I$R/Detour/Include recast_dump.cpp $R/Recast/Source/*.cpp $R/Detour/Source/*.cpp -o recast_dump
// Run: recast_dump LEVEL.obj OUTDIR [cell_size] [watershed|monotone] [tile_size tile_x tile_z]
// (no tile arguments: RecastDemo's solo build; tile_size 0: the whole level as one bordered tile).
// The .npz files next to this one were packed from OUTDIR as README.md says.
#define main bench_main
#include "recast_bench.cpp"
#undef main

// One tile (Sample_TileMesh::buildTileMesh's steps) with a border, or the whole level as one
// bordered tile when tileSize is 0.
static bool buildTile(const ObjMesh& mesh, const Settings& s, int tileSize, int tx, int ty, rcContext* ctx, Build& b)
{
	const float* verts = mesh.verts.data();
	const int numVerts = mesh.vertCount();
	const int* tris = mesh.tris.data();
	const int numTris = mesh.triCount();
	float bmin[3], bmax[3];
	rcCalcBounds(verts, numVerts, bmin, bmax);
	rcConfig& config = b.config;
	memset(&config, 0, sizeof(config));
	config.cs = s.cellSize;
	config.ch = s.cellHeight;
	config.walkableSlopeAngle = s.agentMaxSlope;
	config.walkableHeight = (int)ceilf(s.agentHeight / config.ch);
	config.walkableClimb = (int)floorf(s.agentMaxClimb / config.ch);
	config.walkableRadius = (int)ceilf(s.agentRadius / config.cs);
	config.maxEdgeLen = (int)(s.edgeMaxLen / s.cellSize);
	config.maxSimplificationError = s.edgeMaxError;
	config.minRegionArea = (int)rcSqr(s.regionMinSize);
	config.mergeRegionArea = (int)rcSqr(s.regionMergeSize);
	config.maxVertsPerPoly = s.vertsPerPoly;
	config.borderSize = config.walkableRadius + 3;
	if (tileSize > 0)
	{
		const float tcs = tileSize * config.cs;
		config.bmin[0] = bmin[0] + tx * tcs; config.bmin[1] = bmin[1]; config.bmin[2] = bmin[2] + ty * tcs;
		config.bmax[0] = bmin[0] + (tx + 1) * tcs; config.bmax[1] = bmax[1]; config.bmax[2] = bmin[2] + (ty + 1) * tcs;
		config.width = tileSize + config.borderSize * 2;
		config.height = tileSize + config.borderSize * 2;
	}
	else
	{
		rcVcopy(config.bmin, bmin); rcVcopy(config.bmax, bmax);
		rcCalcGridSize(config.bmin, config.bmax, config.cs, &config.width, &config.height);
		config.width += config.borderSize * 2;
		config.height += config.borderSize * 2;
	}
	config.bmin[0] -= config.borderSize * config.cs;
	config.bmin[2] -= config.borderSize * config.cs;
	config.bmax[0] += config.borderSize * config.cs;
	config.bmax[2] += config.borderSize * config.cs;
	b.heightfield = rcAllocHeightfield();
	rcCreateHeightfield(ctx, *b.heightfield, config.width, config.height, config.bmin, config.bmax, config.cs, config.ch);
	b.triAreas = new unsigned char[numTris > 0 ? numTris : 1];
	memset(b.triAreas, 0, numTris);
	rcMarkWalkableTriangles(ctx, config.walkableSlopeAngle, verts, numVerts, tris, numTris, b.triAreas);
	rcRasterizeTriangles(ctx, verts, numVerts, tris, b.triAreas, numTris, *b.heightfield, config.walkableClimb);
	rcFilterLowHangingWalkableObstacles(ctx, config.walkableClimb, *b.heightfield);
	rcFilterLedgeSpans(ctx, config.walkableHeight, config.walkableClimb, *b.heightfield);
	rcFilterWalkableLowHeightSpans(ctx, config.walkableHeight, *b.heightfield);
	b.chf = rcAllocCompactHeightfield();
	rcBuildCompactHeightfield(ctx, config.walkableHeight, config.walkableClimb, *b.heightfield, *b.chf);
	rcErodeWalkableArea(ctx, config.walkableRadius, *b.chf);
	if (s.partition == PARTITION_WATERSHED)
	{
		rcBuildDistanceField(ctx, *b.chf);
		rcBuildRegions(ctx, *b.chf, config.borderSize, config.minRegionArea, config.mergeRegionArea);
	}
	else
		rcBuildRegionsMonotone(ctx, *b.chf, config.borderSize, config.minRegionArea, config.mergeRegionArea);
	b.cset = rcAllocContourSet();
	rcBuildContours(ctx, *b.chf, config.maxSimplificationError, config.maxEdgeLen, *b.cset);
	b.pmesh = rcAllocPolyMesh();
	rcBuildPolyMesh(ctx, *b.cset, config.maxVertsPerPoly, *b.pmesh);
	return true;
}

static void wr(const char* dir, const char* name, const std::vector<int>& v)
{
	std::string p = std::string(dir) + "/" + name + ".i32";
	FILE* f = fopen(p.c_str(), "wb"); fwrite(v.data(), 4, v.size(), f); fclose(f);
}
int main(int argc, char** argv)
{
	Settings s; ObjMesh mesh;
	if (argc > 3) s.cellSize = (float)atof(argv[3]);
	if (argc > 4 && std::string(argv[4]) == "monotone") s.partition = PARTITION_MONOTONE;
	if (!loadObj(argv[1], mesh)) return 1;
	rcContext ctx(false); Build b;
	if (argc > 5) { if (!buildTile(mesh, s, atoi(argv[5]), argc > 6 ? atoi(argv[6]) : 0, argc > 7 ? atoi(argv[7]) : 0, &ctx, b)) return 1; }
	else if (!buildSolo(mesh, s, 2048, &ctx, b)) return 1;
	const char* out = argv[2];
	rcCompactHeightfield& c = *b.chf;
	std::vector<int> hdr = {c.width, c.height, c.borderSize, c.walkableHeight, c.walkableClimb, c.maxRegions, c.spanCount,
	  b.config.maxEdgeLen, (int)(b.config.maxSimplificationError*1000), b.config.maxVertsPerPoly};
	wr(out, "hdr", hdr);
	std::vector<int> cells, spans;
	for (int i = 0; i < c.width*c.height; ++i) { cells.push_back(c.cells[i].index); cells.push_back(c.cells[i].count); }
	for (int i = 0; i < c.spanCount; ++i) {
		const rcCompactSpan& sp = c.spans[i];
		spans.push_back(sp.y); spans.push_back(sp.h); spans.push_back(sp.reg); spans.push_back(c.areas[i]);
		for (int d = 0; d < 4; ++d) spans.push_back(rcGetCon(sp, d) == RC_NOT_CONNECTED ? -1 : rcGetCon(sp, d));
	}
	wr(out, "cells", cells); wr(out, "spans", spans);
	std::vector<int> ch, cv, crv;
	for (int i = 0; i < b.cset->nconts; ++i) {
		rcContour& k = b.cset->conts[i];
		ch.push_back(k.nverts); ch.push_back(k.nrverts); ch.push_back(k.reg); ch.push_back(k.area);
		for (int j = 0; j < k.nverts*4; ++j) cv.push_back(k.verts[j]);
		for (int j = 0; j < k.nrverts*4; ++j) crv.push_back(k.rverts[j]);
	}
	wr(out, "conts", ch); wr(out, "cverts", cv); wr(out, "crverts", crv);
	rcPolyMesh& m = *b.pmesh;
	std::vector<int> mv, mp, mr;
	for (int i = 0; i < m.nverts*3; ++i) mv.push_back(m.verts[i]);
	for (int i = 0; i < m.npolys*m.nvp*2; ++i) mp.push_back(m.polys[i] == 0xffff ? -1 : m.polys[i]);
	for (int i = 0; i < m.npolys; ++i) { mr.push_back(m.regs[i]); mr.push_back(m.areas[i]); }
	wr(out, "mverts", mv); wr(out, "mpolys", mp); wr(out, "mregs", mr);
	// time contours + polymesh alone
	for (int r = 0; r < 20; ++r) {
		rcContourSet* cs = rcAllocContourSet(); rcPolyMesh* pm = rcAllocPolyMesh();
		double t0 = stageClockMs();
		rcBuildContours(&ctx, c, b.config.maxSimplificationError, b.config.maxEdgeLen, *cs);
		double t1 = stageClockMs();
		rcBuildPolyMesh(&ctx, *cs, b.config.maxVertsPerPoly, *pm);
		double t2 = stageClockMs();
		if (r >= 15) printf("contours %.3f ms polymesh %.3f ms\n", t1 - t0, t2 - t1);
		rcFreeContourSet(cs); rcFreePolyMesh(pm);
	}
	printf("nconts %d npolys %d nverts %d maxRegions %d w %d h %d\n", b.cset->nconts, m.npolys, m.nverts, c.maxRegions, c.width, c.height);
	return 0;
}
