# ruff: noqa: E501  (data tables and prose are kept one record per line)
"""Build the shipped JSON data of the travel, knowledge and time servers, deterministically.

Run ``python -m mcptrials.bundled.data.generate_travel`` (or this file directly): it rewrites
``rail.json``, ``maps.json``, ``parks.json``, ``weather.json``, ``worldclock.json``,
``encyclopedia.json``, ``papers.json`` and ``papers_mirror.json`` beside it. Every random
choice comes from ``random.Random`` seeded with a fixed string, so two runs produce
byte-identical files. The hand-written texts (articles, abstracts, park blurbs) are the
constants near the end of this file.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------- cities

# id | name | admin (province/state) | country | country code | region | lat | lon | IANA zone | elevation m |
# population (thousands) | climate: annual mean C | seasonal amplitude C | annual precip mm | wettest month
CITY_TABLE = """
beijing|Beijing|Beijing|China|CN|asia|39.904|116.407|Asia/Shanghai|44|21890|12.9|15.5|530|7
shanghai|Shanghai|Shanghai|China|CN|asia|31.230|121.474|Asia/Shanghai|4|24870|17.1|12.0|1160|6
guangzhou|Guangzhou|Guangdong|China|CN|asia|23.129|113.264|Asia/Shanghai|21|18680|22.6|7.5|1800|6
shenzhen|Shenzhen|Guangdong|China|CN|asia|22.543|114.058|Asia/Shanghai|5|17560|23.0|6.5|1930|6
hangzhou|Hangzhou|Zhejiang|China|CN|asia|30.274|120.155|Asia/Shanghai|19|11940|17.0|12.0|1450|6
nanjing|Nanjing|Jiangsu|China|CN|asia|32.060|118.797|Asia/Shanghai|9|9310|16.0|13.0|1100|7
suzhou|Suzhou|Jiangsu|China|CN|asia|31.299|120.585|Asia/Shanghai|5|12750|16.5|12.5|1100|6
wuhan|Wuhan|Hubei|China|CN|asia|30.593|114.305|Asia/Shanghai|23|12330|17.0|13.5|1270|6
changsha|Changsha|Hunan|China|CN|asia|28.228|112.939|Asia/Shanghai|45|10050|17.5|12.5|1400|5
chengdu|Chengdu|Sichuan|China|CN|asia|30.573|104.066|Asia/Shanghai|500|20940|16.5|10.0|900|7
chongqing|Chongqing|Chongqing|China|CN|asia|29.563|106.552|Asia/Shanghai|244|32050|18.5|10.5|1100|6
xian|Xi'an|Shaanxi|China|CN|asia|34.342|108.940|Asia/Shanghai|405|12950|14.0|14.0|570|9
zhengzhou|Zhengzhou|Henan|China|CN|asia|34.747|113.625|Asia/Shanghai|110|12600|14.8|14.0|640|7
tianjin|Tianjin|Tianjin|China|CN|asia|39.084|117.201|Asia/Shanghai|5|13870|12.9|15.5|550|7
jinan|Jinan|Shandong|China|CN|asia|36.651|117.120|Asia/Shanghai|51|9200|14.7|14.0|670|7
qingdao|Qingdao|Shandong|China|CN|asia|36.067|120.383|Asia/Shanghai|76|10070|12.7|12.5|680|8
shijiazhuang|Shijiazhuang|Hebei|China|CN|asia|38.042|114.514|Asia/Shanghai|81|11240|13.8|15.0|520|7
taiyuan|Taiyuan|Shanxi|China|CN|asia|37.871|112.549|Asia/Shanghai|778|5390|10.5|14.5|440|7
shenyang|Shenyang|Liaoning|China|CN|asia|41.806|123.432|Asia/Shanghai|49|9070|8.4|19.0|700|7
dalian|Dalian|Liaoning|China|CN|asia|38.914|121.615|Asia/Shanghai|29|7450|10.9|14.0|610|7
harbin|Harbin|Heilongjiang|China|CN|asia|45.803|126.535|Asia/Shanghai|142|10010|4.5|21.5|520|7
hefei|Hefei|Anhui|China|CN|asia|31.821|117.227|Asia/Shanghai|30|9370|16.2|13.5|1000|6
nanchang|Nanchang|Jiangxi|China|CN|asia|28.682|115.858|Asia/Shanghai|50|6260|18.0|12.5|1600|6
fuzhou|Fuzhou|Fujian|China|CN|asia|26.075|119.296|Asia/Shanghai|84|8290|20.0|9.5|1390|6
xiamen|Xiamen|Fujian|China|CN|asia|24.480|118.089|Asia/Shanghai|63|5160|21.0|8.0|1350|6
kunming|Kunming|Yunnan|China|CN|asia|25.038|102.718|Asia/Shanghai|1892|8460|15.5|5.5|1000|7
guiyang|Guiyang|Guizhou|China|CN|asia|26.647|106.630|Asia/Shanghai|1100|5990|15.3|9.5|1120|6
nanning|Nanning|Guangxi|China|CN|asia|22.817|108.367|Asia/Shanghai|80|8740|21.7|7.5|1300|6
lanzhou|Lanzhou|Gansu|China|CN|asia|36.061|103.834|Asia/Shanghai|1520|4360|10.0|13.0|320|7
xuzhou|Xuzhou|Jiangsu|China|CN|asia|34.205|117.285|Asia/Shanghai|40|9080|14.5|14.0|850|7
tokyo|Tokyo|Tokyo|Japan|JP|asia|35.676|139.650|Asia/Tokyo|40|14050|15.8|11.0|1530|9
kyoto|Kyoto|Kyoto|Japan|JP|asia|35.012|135.768|Asia/Tokyo|50|1460|15.9|11.5|1520|6
seoul|Seoul|Seoul|South Korea|KR|asia|37.566|126.978|Asia/Seoul|38|9410|12.5|15.5|1450|7
singapore|Singapore|Singapore|Singapore|SG|asia|1.352|103.820|Asia/Singapore|15|5920|27.5|1.0|2340|11
mumbai|Mumbai|Maharashtra|India|IN|asia|19.076|72.878|Asia/Kolkata|14|12480|27.5|2.5|2200|7
dubai|Dubai|Dubai|United Arab Emirates|AE|asia|25.205|55.271|Asia/Dubai|5|3600|28.0|8.0|90|2
sydney|Sydney|New South Wales|Australia|AU|oceania|-33.869|151.209|Australia/Sydney|58|5310|18.5|5.0|1150|6
auckland|Auckland|Auckland|New Zealand|NZ|oceania|-36.848|174.763|Pacific/Auckland|26|1700|15.5|4.5|1200|7
london|London|England|United Kingdom|GB|europe|51.507|-0.128|Europe/London|11|8980|11.5|7.0|600|10
paris|Paris|Ile-de-France|France|FR|europe|48.857|2.352|Europe/Paris|35|2100|12.5|8.0|640|5
berlin|Berlin|Berlin|Germany|DE|europe|52.520|13.405|Europe/Berlin|34|3850|10.3|9.5|570|7
reykjavik|Reykjavik|Capital Region|Iceland|IS|europe|64.147|-21.942|Atlantic/Reykjavik|10|140|5.0|6.0|850|10
cairo|Cairo|Cairo|Egypt|EG|africa|30.044|31.236|Africa/Cairo|23|10100|22.5|7.5|25|1
nairobi|Nairobi|Nairobi|Kenya|KE|africa|-1.292|36.822|Africa/Nairobi|1795|4400|18.5|1.5|900|4
new-york|New York|New York|United States|US|north_america|40.713|-74.006|America/New_York|10|8340|13.0|11.5|1200|7
chicago|Chicago|Illinois|United States|US|north_america|41.878|-87.630|America/Chicago|181|2700|10.5|14.0|950|6
denver|Denver|Colorado|United States|US|north_america|39.739|-104.990|America/Denver|1609|715|10.5|12.0|400|5
salt-lake-city|Salt Lake City|Utah|United States|US|north_america|40.761|-111.891|America/Denver|1288|200|11.5|13.5|400|4
las-vegas|Las Vegas|Nevada|United States|US|north_america|36.170|-115.140|America/Los_Angeles|610|650|20.5|11.5|110|2
los-angeles|Los Angeles|California|United States|US|north_america|34.052|-118.244|America/Los_Angeles|89|3900|18.5|4.5|370|2
san-francisco|San Francisco|California|United States|US|north_america|37.775|-122.419|America/Los_Angeles|16|810|14.5|3.0|600|2
seattle|Seattle|Washington|United States|US|north_america|47.606|-122.332|America/Los_Angeles|53|750|11.5|7.5|950|11
portland-or|Portland|Oregon|United States|US|north_america|45.515|-122.679|America/Los_Angeles|15|650|12.5|8.5|1000|11
portland-me|Portland|Maine|United States|US|north_america|43.659|-70.257|America/New_York|20|68|8.5|12.5|1200|11
miami|Miami|Florida|United States|US|north_america|25.762|-80.192|America/New_York|2|440|25.0|4.0|1570|8
anchorage|Anchorage|Alaska|United States|US|north_america|61.218|-149.900|America/Anchorage|31|290|3.0|11.5|420|8
honolulu|Honolulu|Hawaii|United States|US|north_america|21.307|-157.858|Pacific/Honolulu|5|350|25.5|2.0|430|12
toronto|Toronto|Ontario|Canada|CA|north_america|43.653|-79.383|America/Toronto|76|2790|9.0|13.0|830|7
mexico-city|Mexico City|Mexico City|Mexico|MX|north_america|19.433|-99.133|America/Mexico_City|2240|9210|17.0|3.0|820|7
sao-paulo|Sao Paulo|Sao Paulo|Brazil|BR|south_america|-23.551|-46.633|America/Sao_Paulo|760|12330|20.0|3.5|1450|1
"""

CITY_FIELDS = ("id", "name", "admin", "country", "country_code", "region", "lat", "lon", "tz",
               "elevation_m", "population_k", "t_mean", "t_amp", "precip_mm", "wettest_month")
_FLOATS = {"lat", "lon", "t_mean", "t_amp"}
_INTS = {"elevation_m", "population_k", "precip_mm", "wettest_month"}


def _table(text: str) -> list[list[str]]:
    """Rows of a pipe-separated text table, skipping blank lines."""
    return [line.split("|") for line in text.strip().splitlines() if line.strip()]


def city_records() -> list[dict[str, Any]]:
    """The city table as dicts with typed values."""
    out = []
    for row in _table(CITY_TABLE):
        rec: dict[str, Any] = {}
        for key, raw in zip(CITY_FIELDS, row, strict=True):
            rec[key] = float(raw) if key in _FLOATS else int(raw) if key in _INTS else raw
        out.append(rec)
    return out


def city_by_id() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in city_records()}


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    r = 6371.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


# --------------------------------------------------------------------------- rail

# code | station name | city id | kind (hsr, conventional, both) | dlat | dlon | street address
STATION_TABLE = """
BJP|Beijing|beijing|conventional|0.000|0.027|13 Maojiawan Hutong, Dongcheng District
VNP|Beijing South|beijing|hsr|-0.039|-0.027|12 Yongwai Avenue, Fengtai District
BXP|Beijing West|beijing|both|-0.010|-0.085|118 Lianhuachi East Road, Fengtai District
IFP|Beijing Chaoyang|beijing|hsr|0.045|0.090|1 Yaojiayuan Road, Chaoyang District
SHH|Shanghai|shanghai|conventional|0.020|-0.019|303 Moling Road, Jing'an District
AOH|Shanghai Hongqiao|shanghai|hsr|-0.035|-0.155|200 Shenzhong Road, Minhang District
SNH|Shanghai South|shanghai|conventional|-0.075|-0.040|289 Shanghai South Station Road, Xuhui District
GZQ|Guangzhou|guangzhou|conventional|0.020|-0.010|159 Huanshi West Road, Yuexiu District
IZQ|Guangzhou South|guangzhou|hsr|-0.140|-0.010|Shibi Street, Panyu District
SZQ|Shenzhen|shenzhen|conventional|-0.010|0.060|1 Jianshe Road, Luohu District
IOQ|Shenzhen North|shenzhen|hsr|0.067|-0.030|28 Zhiyuan Middle Road, Longhua District
HZH|Hangzhou|hangzhou|both|-0.010|0.025|1 Huancheng East Road, Shangcheng District
HGH|Hangzhou East|hangzhou|hsr|0.020|0.060|2 Tiancheng Road, Shangcheng District
NJH|Nanjing|nanjing|conventional|0.030|0.000|264 Longpan Road, Xuanwu District
NKH|Nanjing South|nanjing|hsr|-0.075|0.010|1 Yingtian Avenue, Yuhuatai District
SZH|Suzhou|suzhou|conventional|0.020|0.000|27 Chezhan Road, Gusu District
OHH|Suzhou North|suzhou|hsr|0.110|0.020|Qiaoyang Road, Xiangcheng District
WHN|Wuhan|wuhan|hsr|0.020|0.125|Wuhan Avenue, Hongshan District
WCN|Wuchang|wuhan|conventional|-0.065|0.005|Zhongshan Road, Wuchang District
CSQ|Changsha|changsha|conventional|0.000|0.035|Wuyi Avenue, Furong District
CWQ|Changsha South|changsha|hsr|-0.090|0.080|Huizhan Road, Yuhua District
CDW|Chengdu|chengdu|conventional|0.045|0.010|Erhuan Road North Section 3, Jinniu District
ICW|Chengdu East|chengdu|hsr|0.010|0.075|Qionglai Road, Chenghua District
CQW|Chongqing|chongqing|conventional|0.000|-0.020|Caiyuan Road, Yuzhong District
CUW|Chongqing North|chongqing|hsr|0.085|-0.010|Kunlun Avenue, Yubei District
CXW|Chongqing West|chongqing|hsr|-0.050|-0.130|Fengshou Road, Shapingba District
XAY|Xi'an|xian|conventional|0.030|0.020|44 Huancheng North Road, Xincheng District
EAY|Xi'an North|xian|hsr|0.035|0.000|Wenjing Road, Weiyang District
ZZF|Zhengzhou|zhengzhou|conventional|-0.010|0.025|Erma Road, Erqi District
ZAF|Zhengzhou East|zhengzhou|hsr|0.020|0.150|Xinyi Road, Jinshui District
TJP|Tianjin|tianjin|both|0.050|0.000|Xinkai Road, Hebei District
TXP|Tianjin West|tianjin|hsr|0.060|-0.050|Xizhan Front Square, Hongqiao District
TIP|Tianjin South|tianjin|hsr|-0.030|-0.150|Xiqing Town, Xiqing District
JNK|Jinan|jinan|conventional|0.020|-0.020|19 Chezhan Street, Tianqiao District
JGK|Jinan West|jinan|hsr|0.010|-0.150|Qi Street, Huaiyin District
QDK|Qingdao|qingdao|both|-0.010|-0.060|2 Tai'an Road, Shinan District
QHK|Qingdao North|qingdao|hsr|0.150|0.020|Jingkou Road, Licang District
SJP|Shijiazhuang|shijiazhuang|both|-0.030|0.000|Zhongshan East Road, Qiaoxi District
TYV|Taiyuan|taiyuan|conventional|0.000|0.020|Yingze Street, Yingze District
TNV|Taiyuan South|taiyuan|hsr|-0.080|0.030|Taiyu Road, Xiaodian District
SYT|Shenyang|shenyang|conventional|0.000|-0.040|2 Shengli South Street, Heping District
SBT|Shenyang North|shenyang|hsr|0.030|0.000|102 Beizhan Road, Shenhe District
DLT|Dalian|dalian|conventional|0.000|0.000|Changjiang Road, Zhongshan District
DFT|Dalian North|dalian|hsr|0.060|-0.030|Nanhua Road, Ganjingzi District
HBB|Harbin|harbin|conventional|0.000|0.000|1 Tielu Street, Nangang District
VAB|Harbin West|harbin|hsr|-0.040|-0.080|Harbin West Station Square, Nangang District
HFH|Hefei|hefei|conventional|0.040|0.030|Zhanqian Road, Yaohai District
ENH|Hefei South|hefei|hsr|-0.060|0.030|Tonghe Road, Baohe District
NCG|Nanchang|nanchang|conventional|-0.020|0.020|Erqi South Road, Xihu District
NXG|Nanchang West|nanchang|hsr|-0.030|-0.120|Honggu Tan, Xinjian District
FZS|Fuzhou|fuzhou|both|0.040|0.010|Hualin Road, Jin'an District
FYS|Fuzhou South|fuzhou|hsr|-0.060|0.050|Chengmen Town, Cangshan District
XMS|Xiamen|xiamen|conventional|0.000|0.030|Xiahe Road, Siming District
XKS|Xiamen North|xiamen|hsr|0.150|-0.020|Houxi Town, Jimei District
KMM|Kunming|kunming|conventional|-0.030|0.000|Beijing Road, Guandu District
KOM|Kunming South|kunming|hsr|-0.130|0.120|Chenggong District
GIW|Guiyang|guiyang|conventional|-0.020|0.000|Zunyi Road, Nanming District
KQW|Guiyang North|guiyang|hsr|0.050|0.020|Beijing West Road, Guanshanhu District
NNZ|Nanning|nanning|conventional|0.010|-0.020|82 Zhonghua Road, Xingning District
NFZ|Nanning East|nanning|hsr|0.020|0.080|Fenghuang Ling Road, Qingxiu District
LZJ|Lanzhou|lanzhou|conventional|-0.010|0.020|Huochezhan East Road, Chengguan District
LAJ|Lanzhou West|lanzhou|hsr|0.020|-0.080|Xijin West Road, Qilihe District
XCH|Xuzhou|xuzhou|conventional|0.010|0.020|Fuxing North Road, Gulou District
FYH|Xuzhou East|xuzhou|hsr|0.010|0.090|Houlou Town, Tongshan District
"""

# High-speed corridors: name | stops as CODE:km | G trains | D trains | first G number | first D number
CORRIDOR_TABLE = """
Beijing-Shanghai HSR|VNP:0 TIP:122 JGK:406 FYH:688 NKH:1023 OHH:1237 AOH:1318|16|0|1|0
Beijing-Guangzhou HSR|BXP:0 SJP:281 ZAF:693 WHN:1229 CWQ:1591 IZQ:2298 IOQ:2400|14|4|71|901
Shanghai-Kunming HSR|AOH:0 HGH:159 NXG:735 CWQ:1083 KQW:1786 KOM:2252|10|2|1371|3201
Shanghai-Wuhan-Chengdu HSR|AOH:0 NKH:300 ENH:456 WHN:820 CUW:1640 ICW:1950|8|4|1971|351
Beijing-Harbin HSR|IFP:0 SBT:700 VAB:1240|8|2|901|23
Shenyang-Dalian HSR|SBT:0 DFT:380|6|0|8001|0
Qingdao-Taiyuan HSR|QHK:0 JGK:360 SJP:660 TNV:880|6|2|1251|1601
Xuzhou-Lanzhou HSR|FYH:0 ZAF:360 EAY:840 LAJ:1350|8|2|1911|2651
Xi'an-Chengdu HSR|EAY:0 ICW:658|6|2|2201|1901
Hangzhou-Shenzhen Coastal HSR|HGH:0 FYS:560 XKS:840 IOQ:1350|6|4|1601|3101
Nanning-Guangzhou HSR|IZQ:0 NFZ:570|4|2|2901|3601
Hefei-Fuzhou HSR|ENH:0 FYS:850|4|0|1631|0
Chongqing-Guiyang HSR|CXW:0 KQW:345|4|2|2851|1851
Beijing-Tianjin Intercity|VNP:0 TJP:120|6|0|2551|0
Beijing-Xi'an HSR|BXP:0 SJP:281 ZAF:693 EAY:1216|6|0|651|0
Shanghai-Nanjing Intercity|AOH:0 OHH:81 NKH:300|0|6|0|5501
Shanghai-Hangzhou Intercity|AOH:0 HGH:159|8|0|7301|0
"""

# Conventional lines for K trains: name | stops | trains | first number
CONVENTIONAL_TABLE = """
Beijing-Shanghai Railway|BJP:0 TJP:137 JNK:497 XCH:814 NJH:1160 SZH:1376 SHH:1463|4|101
Beijing-Guangzhou Railway|BXP:0 SJP:277 ZZF:689 WCN:1225 CSQ:1587 GZQ:2294|4|599
Beijing-Harbin Railway|BJP:0 SYT:703 HBB:1249|2|339
Baoji-Chengdu Railway|XAY:0 CDW:842|2|165
Shanghai-Kunming Railway|SHH:0 HZH:201 NCG:800 CSQ:1218 GIW:2000 KMM:2640|2|79
Chengdu-Kunming Railway|CDW:0 KMM:1100|2|113
Guangzhou-Nanning Railway|GZQ:0 NNZ:580|2|365
"""


def _stops(text: str) -> list[tuple[str, int]]:
    return [(part.split(":")[0], int(part.split(":")[1])) for part in text.split()]


SPEED_KMH = {"G": 285.0, "D": 205.0, "K": 100.0}


def _hhmm(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _build_train(
    number: str, ttype: str, stops: list[tuple[str, int]], depart: int, r: random.Random
) -> dict[str, Any]:
    """Lay out one train's timetable from its first departure (minutes after midnight)."""
    route: list[dict[str, Any]] = []
    t = depart
    base_km = stops[0][1]
    for i, (code, km) in enumerate(stops):
        if i > 0:
            leg = abs(km - stops[i - 1][1])
            run = leg / SPEED_KMH[ttype] * 60 + (6 if ttype != "K" else 10)
            t += round(run)
        arr = t if i > 0 else None
        if 0 < i < len(stops) - 1:
            t += r.choice([2, 2, 3, 4]) if ttype != "K" else r.choice([5, 8, 10, 12])
        dep = t if i < len(stops) - 1 else None
        stamp = arr if arr is not None else dep
        assert stamp is not None
        route.append(
            {
                "station": code,
                "arrive": _hhmm(arr) if arr is not None else None,
                "depart": _hhmm(dep) if dep is not None else None,
                "day": (stamp // (24 * 60)),
                "km": abs(km - base_km),
            }
        )
    return {"train_no": number, "type": ttype, "route": route}


def _runs_on(r: random.Random, ttype: str) -> list[int]:
    roll = r.random()
    if ttype == "G" and roll < 0.10:
        return [4, 5, 6]
    if ttype == "G" and roll < 0.15:
        return [0, 1, 2, 3, 4]
    return [0, 1, 2, 3, 4, 5, 6]


def build_rail() -> dict[str, Any]:
    """Stations and a timetable of ~150 trains along real-looking corridors."""
    cities = city_by_id()
    r = random.Random("mcptrials-rail-v1")
    stations = []
    codes = set()
    for code, name, city_id, kind, dlat_s, dlon_s, street in _table(STATION_TABLE):
        dlat, dlon = float(dlat_s), float(dlon_s)
        assert code not in codes, code
        codes.add(code)
        city = cities[city_id]
        stations.append(
            {
                "code": code,
                "name": name,
                "city": city["name"],
                "city_id": city_id,
                "province": city["admin"],
                "kind": kind,
                "lat": round(city["lat"] + dlat, 4),
                "lon": round(city["lon"] + dlon, 4),
                "address": f"{street}, {city['name']}",
            }
        )
    trains: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(train: dict[str, Any], line: str) -> None:
        assert train["train_no"] not in seen, train["train_no"]
        seen.add(train["train_no"])
        train["line"] = line
        trains.append(train)

    for line, stops_s, n_g_s, n_d_s, g_base_s, d_base_s in _table(CORRIDOR_TABLE):
        stops = _stops(stops_s)
        n_g, n_d, g_base, d_base = int(n_g_s), int(n_d_s), int(g_base_s), int(d_base_s)
        total_km = stops[-1][1]
        hours = total_km / SPEED_KMH["G"] + 0.1 * len(stops)
        for ttype, count, base in (("G", n_g, g_base), ("D", n_d, d_base)):
            if count == 0:
                continue
            latest_start = max(7 * 60, int((23.5 - hours * (1.4 if ttype == "D" else 1.0)) * 60))
            per_dir = count // 2
            for direction in (0, 1):
                seq = stops if direction == 0 else [(c, total_km - k) for c, k in reversed(stops)]
                span = max(latest_start - 6 * 60, 60)
                for k in range(per_dir):
                    number = f"{ttype}{base + 2 * k + direction}"
                    start = 6 * 60 + int(span * (k + r.random() * 0.6) / max(per_dir, 1))
                    start -= start % 5
                    middle = [s for s in seq[1:-1] if r.random() < 0.7]
                    if ttype == "G" and k == 0 and len(seq) > 4:
                        middle = [s for s in middle if s[0] in ("NKH", "WHN", "CWQ", "JGK")][:1]
                    route = [seq[0], *middle, seq[-1]]
                    train = _build_train(number, ttype, route, start, r)
                    train["runs_on"] = _runs_on(r, ttype)
                    add(train, line)
    for line, stops_s, count_s, base_s in _table(CONVENTIONAL_TABLE):
        stops, count, base = _stops(stops_s), int(count_s), int(base_s)
        total_km = stops[-1][1]
        per_dir = count // 2
        for direction in (0, 1):
            seq = stops if direction == 0 else [(c, total_km - k) for c, k in reversed(stops)]
            for k in range(per_dir):
                number = f"K{base + 2 * k + direction}"
                start = 15 * 60 + int(7 * 60 * (k + r.random() * 0.5) / max(per_dir, 1))
                start -= start % 5
                train = _build_train(number, "K", list(seq), start, r)
                train["runs_on"] = [0, 1, 2, 3, 4, 5, 6]
                add(train, line)
    trains.sort(key=lambda t: (t["type"], int(t["train_no"][1:])))
    seat_classes = {
        "G": [["business", 1.46], ["first", 0.78], ["second", 0.47]],
        "D": [["first", 0.42], ["second", 0.31]],
        "K": [["soft_sleeper", 0.31], ["hard_sleeper", 0.2], ["hard_seat", 0.11]],
    }
    return {
        "version": 1,
        "booking_window_days": 14,
        "min_transfer_minutes": 20,
        "max_transfer_minutes": 240,
        "seat_classes": seat_classes,
        "stations": stations,
        "trains": trains,
    }


# --------------------------------------------------------------------------- parks

# code | name | states | lat | lon | IANA zone | established | acres | vehicle fee USD |
# climate mean C, amplitude C, precip mm, wettest month | elevation m | gateway town | activities
PARK_TABLE = """
acad|Acadia National Park|ME|44.350|-68.210|America/New_York|1919|49071|35|7.5 12.0 1400 11|140|Bar Harbor|hiking biking birdwatching paddling scenic_driving stargazing swimming camping
arch|Arches National Park|UT|38.733|-109.593|America/Denver|1971|76679|30|13.5 13.5 230 8|1250|Moab|hiking climbing stargazing scenic_driving camping biking
brca|Bryce Canyon National Park|UT|37.593|-112.187|America/Denver|1928|35835|35|5.5 11.5 420 8|2440|Bryce Canyon City|hiking horseback_riding stargazing snowshoeing camping scenic_driving
cany|Canyonlands National Park|UT|38.200|-109.930|America/Denver|1964|337598|30|12.0 13.0 240 8|1800|Moab|hiking biking paddling climbing stargazing camping scenic_driving
zion|Zion National Park|UT|37.298|-113.026|America/Denver|1919|147242|35|16.0 12.0 400 3|1200|Springdale|hiking climbing camping horseback_riding birdwatching biking stargazing
grca|Grand Canyon National Park|AZ|36.057|-112.139|America/Phoenix|1919|1201647|35|9.0 10.5 400 8|2100|Tusayan|hiking camping paddling horseback_riding scenic_driving stargazing biking
yose|Yosemite National Park|CA|37.748|-119.588|America/Los_Angeles|1890|759620|35|12.0 9.5 950 1|1210|Mariposa|hiking climbing camping fishing horseback_riding skiing snowshoeing biking swimming
seki|Sequoia and Kings Canyon National Parks|CA|36.486|-118.566|America/Los_Angeles|1890|865964|35|9.5 9.0 1000 2|1950|Three Rivers|hiking camping fishing snowshoeing horseback_riding scenic_driving
jotr|Joshua Tree National Park|CA|33.873|-115.901|America/Los_Angeles|1994|795156|30|20.0 10.0 110 8|1000|Twentynine Palms|hiking climbing stargazing camping biking birdwatching
deva|Death Valley National Park|CA NV|36.505|-117.079|America/Los_Angeles|1994|3408407|30|25.0 13.5 60 2|-58|Beatty|hiking stargazing scenic_driving camping biking
yell|Yellowstone National Park|WY MT ID|44.428|-110.588|America/Denver|1872|2219791|35|1.5 13.0 620 6|2400|West Yellowstone|hiking camping fishing wildlife_viewing boating snowshoeing skiing scenic_driving horseback_riding
grte|Grand Teton National Park|WY|43.790|-110.682|America/Denver|1929|310044|35|3.0 13.0 560 5|2070|Jackson|hiking climbing paddling fishing wildlife_viewing camping boating skiing
glac|Glacier National Park|MT|48.696|-113.718|America/Denver|1910|1013126|35|4.5 11.5 750 6|1000|West Glacier|hiking camping fishing boating wildlife_viewing scenic_driving paddling
romo|Rocky Mountain National Park|CO|40.343|-105.684|America/Denver|1915|265807|30|3.5 10.5 500 7|2400|Estes Park|hiking climbing camping fishing wildlife_viewing snowshoeing scenic_driving horseback_riding
olym|Olympic National Park|WA|47.802|-123.604|America/Los_Angeles|1938|922649|30|9.5 6.5 2000 12|500|Port Angeles|hiking camping fishing paddling wildlife_viewing swimming skiing
mora|Mount Rainier National Park|WA|46.853|-121.760|America/Los_Angeles|1899|236381|30|4.5 8.5 2100 12|1650|Ashford|hiking climbing camping snowshoeing skiing wildlife_viewing
grsm|Great Smoky Mountains National Park|NC TN|35.611|-83.490|America/New_York|1934|522427|0|12.0 10.0 1400 7|600|Gatlinburg|hiking camping fishing wildlife_viewing horseback_riding scenic_driving birdwatching biking
shen|Shenandoah National Park|VA|38.533|-78.350|America/New_York|1935|200192|30|10.5 11.0 1200 5|900|Luray|hiking camping fishing scenic_driving birdwatching horseback_riding stargazing
ever|Everglades National Park|FL|25.286|-80.899|America/New_York|1947|1508976|35|24.5 4.0 1500 8|2|Homestead|paddling boating birdwatching wildlife_viewing fishing camping biking hiking
havo|Hawaii Volcanoes National Park|HI|19.419|-155.288|Pacific/Honolulu|1916|335259|30|16.5 1.5 2500 12|1200|Volcano|hiking camping stargazing scenic_driving birdwatching
dena|Denali National Park and Preserve|AK|63.330|-150.500|America/Anchorage|1917|6045153|15|-3.0 14.0 400 8|650|Healy|hiking camping wildlife_viewing climbing skiing snowshoeing biking
bibe|Big Bend National Park|TX|29.250|-103.250|America/Chicago|1944|801163|30|19.0 9.5 350 8|1100|Terlingua|hiking camping paddling stargazing birdwatching horseback_riding biking
crla|Crater Lake National Park|OR|42.944|-122.109|America/Los_Angeles|1902|183224|30|3.5 9.0 1700 12|2150|Prospect|hiking camping boating fishing snowshoeing skiing scenic_driving swimming
"""


def park_rows() -> list[tuple[Any, ...]]:
    """Typed rows of the park table."""
    rows = []
    for row in _table(PARK_TABLE):
        code, name, states, lat, lon, tz, est, acres, fee, climate, elev, gateway, acts = row
        c = climate.split()
        rows.append((code, name, states.split(), float(lat), float(lon), tz, int(est), int(acres), int(fee),
                     (float(c[0]), float(c[1]), int(c[2]), int(c[3])), int(elev), gateway, acts.split()))
    return rows


ACTIVITIES = [
    "hiking",
    "camping",
    "fishing",
    "stargazing",
    "wildlife_viewing",
    "biking",
    "boating",
    "climbing",
    "horseback_riding",
    "scenic_driving",
    "skiing",
    "snowshoeing",
    "swimming",
    "paddling",
    "birdwatching",
]

STATE_NAMES = {
    "ME": "Maine",
    "UT": "Utah",
    "AZ": "Arizona",
    "CA": "California",
    "NV": "Nevada",
    "WY": "Wyoming",
    "MT": "Montana",
    "ID": "Idaho",
    "CO": "Colorado",
    "WA": "Washington",
    "NC": "North Carolina",
    "TN": "Tennessee",
    "VA": "Virginia",
    "FL": "Florida",
    "HI": "Hawaii",
    "AK": "Alaska",
    "TX": "Texas",
    "OR": "Oregon",
}

CAMP_WORDS = [
    "Juniper",
    "Aspen",
    "Cottonwood",
    "Ridge",
    "Meadow",
    "Canyon",
    "Lakeside",
    "Pine Flat",
    "Falls",
    "Mesa",
    "Creek",
    "Overlook",
    "Hollow",
    "Basin",
    "Springs",
    "Willow",
]
AMENITIES = [
    "flush toilets",
    "vault toilets",
    "potable water",
    "showers",
    "dump station",
    "food storage lockers",
    "fire rings",
    "picnic tables",
    "camp store",
    "amphitheater",
    "RV hookups",
    "cell coverage",
]


def _seasonal_road(spec: str) -> dict[str, Any] | None:
    if not spec:
        return None
    name, first, last = spec.split("|")
    return {"name": name, "open_months": [int(first), int(last)]}


def build_parks() -> dict[str, Any]:
    """National parks with campgrounds and visitor centers; alerts and events are simulated at call time."""
    r = random.Random("mcptrials-parks-v1")
    parks = []
    for code, name, states, lat, lon, tz, est, acres, fee, climate, elev, gateway, acts in park_rows():
        for act in acts:
            assert act in ACTIVITIES, act
        words = r.sample(CAMP_WORDS, 4)
        n_camp = 2 + (len(acts) > 7) + (acres > 900000)
        campgrounds = []
        for i in range(n_camp):
            sites = r.choice([24, 32, 48, 60, 85, 110, 150, 210, 300])
            season = [5, 9] if climate[0] < 8 else ([1, 12] if climate[0] > 18 else [4, 10])
            if i == 0:
                season = [1, 12] if climate[0] > 0 else [5, 9]
            campgrounds.append(
                {
                    "id": f"{code}-cg{i + 1}",
                    "name": f"{words[i]} Campground",
                    "sites": sites,
                    "reservable": i != n_camp - 1 or (n_camp == 2 and i == 0),
                    "fee_per_night": r.choice([15, 20, 25, 30, 35, 36]),
                    "season_months": season,
                    "max_rv_length_ft": r.choice([0, 24, 27, 30, 35, 40]),
                    "amenities": sorted(r.sample(AMENITIES, 4)),
                    "lat": round(lat + r.uniform(-0.08, 0.08), 4),
                    "lon": round(lon + r.uniform(-0.08, 0.08), 4),
                }
            )
        vc_names = VISITOR_CENTERS[code]
        centers = []
        for i, vc in enumerate(vc_names):
            open_h, close_h = r.choice([(8, 17), (9, 17), (8, 18), (9, 16), (8, 16)])
            centers.append(
                {
                    "id": f"{code}-vc{i + 1}",
                    "name": vc,
                    "hours": f"{open_h:02d}:00-{close_h:02d}:00",
                    "open_months": [1, 12] if i == 0 else [5, 10],
                    "phone": f"+1 {r.randint(200, 989)}-{r.randint(200, 989)}-{r.randint(1000, 9999)}",
                    "lat": round(lat + r.uniform(-0.05, 0.05), 4),
                    "lon": round(lon + r.uniform(-0.05, 0.05), 4),
                }
            )
        fees = (
            []
            if fee == 0
            else [
                {"type": "private vehicle", "cost_usd": fee, "valid_days": 7},
                {"type": "motorcycle", "cost_usd": max(fee - 5, 10), "valid_days": 7},
                {"type": "per person (foot or bicycle)", "cost_usd": max(fee - 15, 10), "valid_days": 7},
            ]
        )
        if code == "dena":
            fees = [{"type": "per person", "cost_usd": 15, "valid_days": 7}]
        parks.append(
            {
                "code": code,
                "name": name,
                "states": states,
                "state_names": [STATE_NAMES[s] for s in states],
                "lat": lat,
                "lon": lon,
                "timezone": tz,
                "established": est,
                "area_acres": acres,
                "elevation_m": elev,
                "gateway_town": gateway,
                "description": PARK_BLURBS[code],
                "trails": PARK_FEATURES[code][0],
                "wildlife": PARK_FEATURES[code][1],
                "seasonal_road": _seasonal_road(PARK_FEATURES[code][2]),
                "activities": acts,
                "entrance_fees": fees,
                "climate": {
                    "t_mean": climate[0],
                    "t_amp": climate[1],
                    "precip_mm": climate[2],
                    "wettest_month": climate[3],
                },
                "campgrounds": campgrounds,
                "visitor_centers": centers,
            }
        )
    return {"version": 1, "activities": ACTIVITIES, "parks": parks, "states": STATE_NAMES}


# --------------------------------------------------------------------------- maps

PLACE_TYPES = [
    "restaurant",
    "cafe",
    "hotel",
    "museum",
    "park",
    "hospital",
    "train_station",
    "pharmacy",
    "supermarket",
    "attraction",
    "gas_station",
]

NAME_PARTS = {
    "restaurant": (
        [
            "Golden",
            "Red Lantern",
            "Harbor",
            "Old Town",
            "Jade",
            "Copper Pot",
            "Riverside",
            "Lotus",
            "Blue Door",
            "Saffron",
            "Oak & Ember",
            "Twin Pines",
        ],
        ["Kitchen", "Bistro", "Dining Hall", "Noodle House", "Grill", "Eatery", "Table"],
    ),
    "cafe": (
        ["Morning", "Corner", "Lantern", "Velvet", "Little Fox", "Paper Crane", "Brass"],
        ["Cafe", "Coffee", "Espresso Bar", "Tea House", "Roasters"],
    ),
    "hotel": (
        ["Grand", "Parkview", "Meridian", "Silverleaf", "Harborlight", "Summit", "Crescent"],
        ["Hotel", "Inn", "Suites", "Lodge", "Residences"],
    ),
    "museum": (
        ["City", "Provincial", "Maritime", "Natural History", "Modern Art", "Railway", "Folk Culture"],
        ["Museum", "Gallery", "Heritage Hall"],
    ),
    "park": (
        ["Willow", "Lakeside", "Central", "Riverside", "Plum Blossom", "Hilltop", "Memorial"],
        ["Park", "Gardens", "Green"],
    ),
    "hospital": (
        ["People's", "General", "University", "St. Luke's", "Central", "Union"],
        ["Hospital", "Medical Center"],
    ),
    "pharmacy": (["Green Cross", "Care", "Sunrise", "Everyday", "Healthway"], ["Pharmacy", "Drugstore"]),
    "supermarket": (
        ["FreshMart", "Harvest", "Daily", "Greenfield", "Metro"],
        ["Supermarket", "Market", "Grocer"],
    ),
    "gas_station": (["Northway", "Summit", "Blue Flame", "Roadstar"], ["Fuel", "Gas", "Service Station"]),
}

STREETS_CN = ["Zhongshan Road", "Renmin Road", "Jiefang Avenue", "Heping Street", "Xinhua Road", "Huaihai Road",
              "Jianshe Road", "Yan'an Road", "Changjiang Road"]
STREETS = ["Park Avenue", "Main Street", "Market Street", "Station Road", "River Road", "Hill Street", "Lake Drive",
           "Garden Lane", "King Street", "Harbor Road", "Elm Street", "Cedar Avenue"]


def _street_address(r: random.Random, city: dict[str, Any], high: int) -> str:
    pool = STREETS_CN if city["country_code"] == "CN" else STREETS
    admin = f"{city['admin']}, " if city["country_code"] in ("US", "CA", "AU") else ""
    return f"{r.randint(1, high)} {r.choice(pool)}, {city['name']}, {admin}{city['country']}"

# Hand-placed landmarks: city id, name, type, dlat, dlon, rating
LANDMARKS: list[tuple[str, str, str, float, float, float]] = [
    ("beijing", "Palace Museum", "museum", 0.012, -0.010, 4.8),
    ("beijing", "Temple of Heaven", "attraction", -0.022, 0.003, 4.7),
    ("beijing", "Jingshan Park", "park", 0.021, -0.011, 4.6),
    ("shanghai", "The Bund", "attraction", 0.010, 0.016, 4.7),
    ("shanghai", "Yu Garden", "park", -0.003, 0.018, 4.5),
    ("shanghai", "Shanghai Museum", "museum", -0.002, -0.001, 4.7),
    ("xian", "Xi'an City Wall South Gate", "attraction", -0.008, 0.003, 4.6),
    ("xian", "Shaanxi History Museum", "museum", -0.036, 0.012, 4.8),
    ("hangzhou", "West Lake", "park", -0.024, -0.015, 4.8),
    ("chengdu", "Chengdu Research Base of Giant Panda Breeding", "attraction", 0.160, 0.080, 4.7),
    ("nanjing", "Sun Yat-sen Mausoleum", "attraction", 0.003, 0.055, 4.7),
    ("guangzhou", "Canton Tower", "attraction", -0.023, 0.060, 4.6),
    ("tokyo", "Tokyo Tower", "attraction", -0.018, 0.095, 4.5),
    ("tokyo", "Tokyo National Museum", "museum", 0.043, 0.123, 4.6),
    ("kyoto", "Fushimi Inari Shrine", "attraction", -0.045, 0.004, 4.8),
    ("london", "British Museum", "museum", 0.012, 0.001, 4.8),
    ("london", "Hyde Park", "park", 0.001, -0.037, 4.7),
    ("paris", "Louvre Museum", "museum", 0.004, -0.015, 4.7),
    ("paris", "Eiffel Tower", "attraction", 0.001, -0.058, 4.7),
    ("berlin", "Brandenburg Gate", "attraction", -0.004, -0.028, 4.7),
    ("new-york", "Central Park", "park", 0.072, 0.041, 4.8),
    ("new-york", "Metropolitan Museum of Art", "museum", 0.066, 0.043, 4.8),
    ("san-francisco", "Golden Gate Bridge", "attraction", 0.045, -0.059, 4.8),
    ("san-francisco", "Exploratorium", "museum", 0.026, 0.020, 4.6),
    ("sydney", "Sydney Opera House", "attraction", 0.012, 0.006, 4.7),
    ("chicago", "Art Institute of Chicago", "museum", -0.006, 0.006, 4.8),
    ("seattle", "Pike Place Market", "attraction", 0.003, -0.010, 4.6),
    ("denver", "Denver Art Museum", "museum", -0.002, -0.000, 4.5),
    ("singapore", "Gardens by the Bay", "park", -0.070, 0.043, 4.7),
    ("reykjavik", "Hallgrimskirkja", "attraction", -0.005, 0.015, 4.6),
]

REGION_PHONE = {
    "CN": "+86",
    "JP": "+81",
    "KR": "+82",
    "SG": "+65",
    "IN": "+91",
    "AE": "+971",
    "AU": "+61",
    "NZ": "+64",
    "GB": "+44",
    "FR": "+33",
    "DE": "+49",
    "IS": "+354",
    "EG": "+20",
    "KE": "+254",
    "US": "+1",
    "CA": "+1",
    "MX": "+52",
    "BR": "+55",
}


def _hours(r: random.Random, ptype: str) -> str:
    if ptype in ("hospital", "train_station", "gas_station"):
        return "00:00-24:00"
    if ptype == "park":
        return "06:00-22:00"
    if ptype == "hotel":
        return "00:00-24:00"
    open_h = {"cafe": r.choice([7, 8]), "restaurant": r.choice([10, 11]), "museum": 9}.get(
        ptype, r.choice([8, 9])
    )
    close_h = {
        "cafe": r.choice([18, 20]),
        "restaurant": r.choice([21, 22]),
        "museum": r.choice([17, 18]),
    }.get(ptype, r.choice([21, 22]))
    return f"{open_h:02d}:00-{close_h:02d}:00"


def build_maps(rail: dict[str, Any], parks: dict[str, Any]) -> dict[str, Any]:
    """Cities, points of interest (stations, landmarks, generated businesses) and park entries."""
    r = random.Random("mcptrials-maps-v1")
    cities = city_records()
    places: list[dict[str, Any]] = []
    used_names: set[tuple[str, str]] = set()

    def add(place: dict[str, Any]) -> None:
        key = (place["city_id"], place["name"])
        if key in used_names:
            return
        used_names.add(key)
        places.append(place)

    for city in cities:
        cid = city["id"]
        prefix = REGION_PHONE[city["country_code"]]
        for code_station in [s for s in rail["stations"] if s["city_id"] == cid]:
            add(
                {
                    "id": f"pl-{cid}-{code_station['code'].lower()}",
                    "name": f"{code_station['name']} Railway Station",
                    "type": "train_station",
                    "city_id": cid,
                    "lat": code_station["lat"],
                    "lon": code_station["lon"],
                    "address": code_station["address"] + f", {city['country']}",
                    "rating": round(r.uniform(3.9, 4.6), 1),
                    "hours": "00:00-24:00",
                    "phone": f"{prefix} 12306",
                    "price_level": None,
                    "rail_code": code_station["code"],
                }
            )
        for lm_city, name, ptype, dlat, dlon, rating in LANDMARKS:
            if lm_city != cid:
                continue
            add(
                {
                    "id": f"pl-{cid}-{name.lower().replace(' ', '-').replace(chr(39), '')}"[:40],
                    "name": name,
                    "type": ptype,
                    "city_id": cid,
                    "lat": round(city["lat"] + dlat, 4),
                    "lon": round(city["lon"] + dlon, 4),
                    "address": _street_address(r, city, 300),
                    "rating": rating,
                    "hours": _hours(r, ptype),
                    "phone": f"{prefix} {r.randint(100, 999)} {r.randint(1000, 9999)}",
                    "price_level": None,
                }
            )
        n_generated = 9 if city["population_k"] > 5000 else 6
        types = [
            "restaurant",
            "cafe",
            "hotel",
            "hospital",
            "pharmacy",
            "restaurant",
            "supermarket",
            "museum",
            "park",
            "gas_station",
            "hotel",
            "cafe",
        ]
        for i in range(n_generated):
            ptype = types[i]
            first, second = NAME_PARTS[ptype]
            name = f"{r.choice(first)} {r.choice(second)}"
            dist = r.uniform(0.2, 6.0)
            bearing = r.uniform(0, 2 * math.pi)
            dlat = dist / 111.0 * math.cos(bearing)
            dlon = dist / (111.0 * max(math.cos(math.radians(city["lat"])), 0.2)) * math.sin(bearing)
            add(
                {
                    "id": f"pl-{cid}-{i + 1:02d}",
                    "name": name,
                    "type": ptype,
                    "city_id": cid,
                    "lat": round(city["lat"] + dlat, 4),
                    "lon": round(city["lon"] + dlon, 4),
                    "address": _street_address(r, city, 400),
                    "rating": round(r.uniform(3.4, 4.9), 1),
                    "hours": _hours(r, ptype),
                    "phone": f"{prefix} {r.randint(100, 999)} {r.randint(1000, 9999)}",
                    "price_level": r.randint(1, 4) if ptype in ("restaurant", "cafe", "hotel") else None,
                }
            )
    for park in parks["parks"]:
        code = park["code"]
        add(
            {
                "id": f"pl-park-{code}",
                "name": park["name"],
                "type": "park",
                "city_id": f"park-{code}",
                "lat": park["lat"],
                "lon": park["lon"],
                "address": f"{park['name']}, {', '.join(park['state_names'])}, United States",
                "rating": round(r.uniform(4.6, 4.9), 1),
                "hours": "00:00-24:00",
                "phone": f"+1 {r.randint(200, 989)} {r.randint(200, 989)} {r.randint(1000, 9999)}",
                "price_level": None,
                "park_code": code,
            }
        )
        gateway_lat, gateway_lon = park["lat"] + r.uniform(-0.15, 0.15), park["lon"] + r.uniform(-0.15, 0.15)
        for i, ptype in enumerate(["hotel", "restaurant", "gas_station", "cafe"]):
            first, second = NAME_PARTS[ptype]
            add(
                {
                    "id": f"pl-park-{code}-{i + 1:02d}",
                    "name": f"{park['gateway_town']} {r.choice(first)} {r.choice(second)}",
                    "type": ptype,
                    "city_id": f"park-{code}",
                    "lat": round(gateway_lat + r.uniform(-0.02, 0.02), 4),
                    "lon": round(gateway_lon + r.uniform(-0.02, 0.02), 4),
                    "address": f"{r.randint(10, 900)} {r.choice(STREETS)}, {park['gateway_town']}, "
                    f"{park['state_names'][0]}, United States",
                    "rating": round(r.uniform(3.6, 4.8), 1),
                    "hours": _hours(r, ptype),
                    "phone": f"+1 {r.randint(200, 989)} {r.randint(200, 989)} {r.randint(1000, 9999)}",
                    "price_level": r.randint(1, 3) if ptype != "gas_station" else None,
                }
            )
    city_out = [
        {
            k: c[k]
            for k in (
                "id",
                "name",
                "admin",
                "country",
                "country_code",
                "region",
                "lat",
                "lon",
                "tz",
                "elevation_m",
                "population_k",
            )
        }
        for c in cities
    ]
    return {"version": 1, "place_types": PLACE_TYPES, "cities": city_out, "places": places}


# --------------------------------------------------------------------------- weather


def build_weather(parks: dict[str, Any]) -> dict[str, Any]:
    """Weather stations: every city and every park, each with climate normals used for simulation."""
    locations = []
    for c in city_records():
        locations.append(
            {
                "id": f"wx-{c['id']}",
                "name": c["name"],
                "admin": c["admin"],
                "country": c["country"],
                "lat": c["lat"],
                "lon": c["lon"],
                "tz": c["tz"],
                "elevation_m": c["elevation_m"],
                "climate": {
                    "t_mean": c["t_mean"],
                    "t_amp": c["t_amp"],
                    "precip_mm": c["precip_mm"],
                    "wettest_month": c["wettest_month"],
                },
                "kind": "city",
            }
        )
    for p in parks["parks"]:
        locations.append(
            {
                "id": f"wx-{p['code']}",
                "name": p["name"],
                "admin": ", ".join(p["state_names"]),
                "country": "United States",
                "lat": p["lat"],
                "lon": p["lon"],
                "tz": p["timezone"],
                "elevation_m": p["elevation_m"],
                "climate": p["climate"],
                "kind": "park",
            }
        )
    return {"version": 1, "locations": locations}


def build_worldclock() -> dict[str, Any]:
    """Cities the world clock knows, with their IANA zones."""
    cities = [
        {"name": c["name"], "admin": c["admin"], "country": c["country"], "region": c["region"], "tz": c["tz"],
         "key": c["id"]}
        for c in city_records()
    ]
    return {"version": 1, "cities": cities}


# --------------------------------------------------------------------------- knowledge


def build_encyclopedia() -> dict[str, Any]:
    """The article corpus, checked for dangling links and duplicate titles."""
    articles = [dict(a) for a in ARTICLES]
    titles = [a["title"] for a in articles]
    assert len(set(titles)) == len(titles), "duplicate article titles"
    known = set(titles)
    for a in articles:
        for link in a.get("links", []):
            assert link in known, f"{a['title']} links to unknown {link}"
        for target in a.get("disambiguation", []):
            assert target in known, f"{a['title']} lists unknown {target}"
    for a in articles:
        a["id"] = "enc-" + "".join(ch for ch in a["title"].lower() if ch.isalnum())[:24]
        a["word_count"] = sum(len(s["text"].split()) for s in a.get("sections", [])) + len(
            a["summary"].split()
        )
    ids = [a["id"] for a in articles]
    assert len(set(ids)) == len(ids), "duplicate article ids"
    return {"version": 1, "articles": articles}


def build_papers() -> tuple[dict[str, Any], dict[str, Any]]:
    """The main paper index (with full texts) and the smaller, staler mirror index."""
    r = random.Random("mcptrials-papers-v1")
    papers = [dict(p) for p in PAPERS]
    ids = {p["id"] for p in papers}
    assert len(ids) == len(papers)
    cited_by: dict[str, list[str]] = {p["id"]: [] for p in papers}
    for p in papers:
        for ref in p["references"]:
            assert ref in ids, f"{p['id']} cites unknown {ref}"
            cited_by[ref].append(p["id"])
    for p in papers:
        p["cited_by"] = sorted(cited_by[p["id"]])
        p["citation_count"] = len(cited_by[p["id"]]) * 7 + r.randint(3, 160) + (2026 - p["year"]) * 11
    mirror = []
    keep = [p for p in papers if p["mirror"]]
    for p in keep:
        mirror.append(
            {
                "id": p["id"],
                "title": p["title"],
                "authors": p["authors"][:3],
                "year": p["year"],
                "venue": p["venue"],
                "citation_count": max(0, p["citation_count"] - r.randint(20, 90)),
                "keywords": p["keywords"][:2],
                "pdf_url": f"https://mirror.example.org/pdf/{p['id']}.pdf",
                "mirrored_on": f"2025-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            }
        )
    for extra in MIRROR_ONLY:
        mirror.append(dict(extra))
    for p in papers:
        del p["mirror"]
    return {"version": 1, "papers": papers}, {"version": 1, "papers": mirror}


# --------------------------------------------------------------------------- hand-written prose

VISITOR_CENTERS: dict[str, list[str]] = {
    "acad": ["Hulls Cove Visitor Center", "Sieur de Monts Nature Center"],
    "arch": ["Arches Visitor Center"],
    "brca": ["Bryce Canyon Visitor Center"],
    "cany": ["Island in the Sky Visitor Center", "Needles Visitor Center"],
    "zion": ["Zion Canyon Visitor Center", "Kolob Canyons Visitor Center"],
    "grca": ["Grand Canyon Visitor Center", "North Rim Visitor Center"],
    "yose": ["Yosemite Valley Welcome Center", "Tuolumne Meadows Visitor Center"],
    "seki": ["Foothills Visitor Center", "Kings Canyon Visitor Center"],
    "jotr": ["Joshua Tree Visitor Center", "Oasis Visitor Center"],
    "deva": ["Furnace Creek Visitor Center"],
    "yell": ["Old Faithful Visitor Education Center", "Canyon Visitor Education Center",
             "Albright Visitor Center"],
    "grte": ["Craig Thomas Discovery and Visitor Center", "Colter Bay Visitor Center"],
    "glac": ["Apgar Visitor Center", "Logan Pass Visitor Center"],
    "romo": ["Beaver Meadows Visitor Center", "Alpine Visitor Center"],
    "olym": ["Olympic National Park Visitor Center", "Hoh Rain Forest Visitor Center"],
    "mora": ["Longmire Museum", "Paradise Jackson Visitor Center"],
    "grsm": ["Sugarlands Visitor Center", "Oconaluftee Visitor Center"],
    "shen": ["Dickey Ridge Visitor Center", "Byrd Visitor Center"],
    "ever": ["Ernest F. Coe Visitor Center", "Flamingo Visitor Center"],
    "havo": ["Kilauea Visitor Center"],
    "dena": ["Denali Visitor Center", "Eielson Visitor Center"],
    "bibe": ["Panther Junction Visitor Center", "Chisos Basin Visitor Center"],
    "crla": ["Steel Visitor Center", "Rim Visitor Center"],
}

# code -> (notable trails, wildlife to watch for, seasonal road as "name|first open month|last open month")
PARK_FEATURES: dict[str, tuple[list[str], list[str], str]] = {
    "acad": (["Precipice Trail", "Jordan Pond Path", "Beehive Trail"], ["peregrine falcons", "harbor seals"], "Cadillac Summit Road|4|11"),
    "arch": (["Delicate Arch Trail", "Devils Garden Loop", "Fiery Furnace"], ["desert bighorn sheep"], ""),
    "brca": (["Navajo Loop", "Queens Garden Trail", "Fairyland Loop"], ["Utah prairie dogs", "pronghorn"], ""),
    "cany": (["Mesa Arch Trail", "Grand View Point Trail", "Chesler Park Loop"], ["desert bighorn sheep"], "Shafer Trail Road|3|11"),
    "zion": (["Angels Landing", "The Narrows", "Emerald Pools Trail"], ["desert bighorn sheep", "California condors"], "Kolob Terrace Road|5|10"),
    "grca": (["Bright Angel Trail", "South Kaibab Trail", "Rim Trail"], ["elk", "California condors"], "North Rim Highway 67|5|10"),
    "yose": (["Mist Trail", "Half Dome Trail", "Yosemite Falls Trail"], ["black bears"], "Tioga Road|6|10"),
    "seki": (["Congress Trail", "Moro Rock Trail", "Mist Falls Trail"], ["black bears"], "Kings Canyon Scenic Byway|5|10"),
    "jotr": (["Ryan Mountain Trail", "Hidden Valley Trail", "Barker Dam Trail"], ["desert tortoises", "rattlesnakes"], ""),
    "deva": (["Golden Canyon Trail", "Mesquite Flat Sand Dunes", "Telescope Peak Trail"], ["rattlesnakes"], ""),
    "yell": (["Fairy Falls Trail", "Mount Washburn Trail", "Uncle Tom's Trail"], ["bison", "grizzly bears", "elk"], "Beartooth Highway|5|10"),
    "grte": (["Cascade Canyon Trail", "Taggart Lake Trail", "Jenny Lake Loop"], ["moose", "grizzly bears"], "Moose-Wilson Road|5|10"),
    "glac": (["Highline Trail", "Grinnell Glacier Trail", "Avalanche Lake Trail"], ["grizzly bears", "mountain goats"], "Going-to-the-Sun Road|7|9"),
    "romo": (["Sky Pond Trail", "Emerald Lake Trail", "Longs Peak Keyhole Route"], ["elk", "moose"], "Trail Ridge Road|6|10"),
    "olym": (["Hoh River Trail", "Hurricane Hill Trail", "Sol Duc Falls Trail"], ["Roosevelt elk", "black bears"], "Hurricane Ridge Road|5|10"),
    "mora": (["Skyline Trail", "Wonderland Trail", "Naches Peak Loop"], ["mountain goats", "black bears"], "Sunrise Road|7|9"),
    "grsm": (["Alum Cave Trail", "Laurel Falls Trail", "Chimney Tops Trail"], ["black bears", "elk"], "Clingmans Dome Road|4|11"),
    "shen": (["Old Rag Mountain", "Dark Hollow Falls Trail", "Stony Man Trail"], ["black bears"], ""),
    "ever": (["Anhinga Trail", "Gumbo Limbo Trail", "Shark Valley Tram Road"], ["American alligators", "Burmese pythons", "manatees"], ""),
    "havo": (["Kilauea Iki Trail", "Devastation Trail", "Crater Rim Trail"], ["nene geese"], ""),
    "dena": (["Savage River Loop", "Horseshoe Lake Trail", "Mount Healy Overlook Trail"], ["grizzly bears", "moose", "caribou"], "Denali Park Road beyond Mile 15|5|9"),
    "bibe": (["Lost Mine Trail", "Santa Elena Canyon Trail", "Window Trail"], ["black bears", "javelinas"], ""),
    "crla": (["Cleetwood Cove Trail", "Garfield Peak Trail", "Watchman Peak Trail"], ["black bears"], "Rim Drive|7|10"),
}

PARK_BLURBS: dict[str, str] = {
    "acad": "Granite headlands, cobble beaches and carriage roads on Mount Desert Island, where Cadillac "
            "Mountain catches some of the earliest sunrise light in the country during autumn and winter.",
    "arch": "A high desert of red sandstone holding more than two thousand natural stone arches, with "
            "Delicate Arch the best known; summer days are hot and shade is scarce.",
    "brca": "A series of natural amphitheaters filled with hoodoos, thin spires of eroded limestone, at "
            "elevations high enough that snow can fall in every month but July.",
    "cany": "The Colorado and Green rivers have cut this desert into four districts of mesas, canyons and "
            "buttes; roads are few and many areas need a high-clearance vehicle.",
    "zion": "Utah's first national park, centred on a deep sandstone canyon carved by the Virgin River; a "
            "shuttle replaces private cars on the scenic drive for most of the year.",
    "grca": "A mile-deep gorge of the Colorado River exposing almost two billion years of rock; the South "
            "Rim is open all year while the higher North Rim closes in winter.",
    "yose": "Granite cliffs such as El Capitan and Half Dome rise above a glacier-carved valley, with "
            "waterfalls that peak with snowmelt in late spring.",
    "seki": "Two adjoining parks in the southern Sierra Nevada protecting groves of giant sequoias, "
            "including the General Sherman Tree, and deep glacial canyons.",
    "jotr": "Where the Mojave and Colorado deserts meet, known for its twisted Joshua trees, granite "
            "boulder piles popular with climbers, and very dark night skies.",
    "deva": "The hottest, driest and lowest national park in the United States; Badwater Basin lies 86 "
            "metres below sea level and summer heat can be dangerous.",
    "yell": "The world's first national park, set on an active volcanic plateau with more than half of the "
            "planet's geysers, including Old Faithful, and large herds of bison and elk.",
    "grte": "The jagged Teton Range rises without foothills above Jackson Hole, a valley of lakes, sage "
            "flats and the Snake River.",
    "glac": "Rugged peaks, more than 700 lakes and the remnants of alpine glaciers along the Continental "
            "Divide; the Going-to-the-Sun Road crosses Logan Pass in summer.",
    "romo": "Alpine tundra, mountain lakes and elk meadows on both sides of the Continental Divide, "
            "reached by Trail Ridge Road, the highest continuous paved road in the country.",
    "olym": "Three ecosystems in one park: glaciated mountains, wild Pacific coastline and the temperate "
            "rain forests of the Hoh and Quinault valleys.",
    "mora": "An ice-clad stratovolcano of 4,392 metres surrounded by wildflower meadows and old-growth "
            "forest; Paradise is among the snowiest places where snowfall is measured regularly.",
    "grsm": "Forested ridges straddling North Carolina and Tennessee, famous for their blue haze, "
            "salamander diversity and historic mountain farmsteads; there is no entrance fee.",
    "shen": "A long, narrow park along the Blue Ridge crossed end to end by Skyline Drive, with "
            "waterfalls, rocky summits and a section of the Appalachian Trail.",
    "ever": "The largest subtropical wilderness in the United States, a slow-moving river of sawgrass, "
            "mangroves and cypress that shelters manatees, alligators and wading birds.",
    "havo": "Home to Kilauea and Mauna Loa, two of the world's most active volcanoes; eruptions, "
            "closures and volcanic gas levels can change from day to day.",
    "dena": "Six million acres of taiga and tundra around Denali, North America's highest peak; a single "
            "road leads into the park and most of it is open only to buses.",
    "bibe": "Desert, mountains and river meet along a great bend of the Rio Grande on the Mexican border; "
            "the Chisos Mountains lie entirely within the park.",
    "crla": "The deepest lake in the United States fills the caldera left when Mount Mazama collapsed; "
            "heavy snow keeps the Rim Drive closed for much of the year.",
}


def _art(title: str, summary: str, sections: list[tuple[str, str]], links: list[str],
         categories: list[str], aliases: list[str] | None = None) -> dict[str, Any]:
    return {"title": title, "summary": summary,
            "sections": [{"heading": h, "text": t} for h, t in sections],
            "links": links, "categories": categories, "aliases": aliases or []}


def _disambig(title: str, intro: str, targets: list[str]) -> dict[str, Any]:
    return {"title": title, "summary": intro, "sections": [], "links": list(targets),
            "categories": ["Disambiguation pages"], "aliases": [], "disambiguation": list(targets)}


ARTICLES: list[dict[str, Any]] = [
    # ----------------------------------------------------------------- cities
    _art("Beijing",
         "Beijing is the capital of the People's Republic of China and one of its four direct-administered "
         "municipalities, with about 21.9 million residents. It is the country's political and cultural "
         "centre and the hub of its northern rail network.",
         [("History", "The city served as an imperial capital for most of the last eight centuries. The "
                      "Ming dynasty built the Forbidden City between 1406 and 1420, and the palace complex "
                      "has been open to the public as the Palace Museum since 1925."),
          ("Transport", "Beijing has several main railway stations. Beijing South handles most high-speed "
                        "trains to Tianjin and Shanghai, Beijing West serves the line to Guangzhou and "
                        "Shenzhen, and Beijing Chaoyang is the terminus for trains to Shenyang and Harbin. "
                        "The older Beijing station serves conventional overnight trains."),
          ("Events", "Beijing hosted the 2008 Summer Olympics and the 2022 Winter Olympics, making it the "
                     "first city to stage both the summer and winter games.")],
         ["Great Wall of China", "High-speed rail in China", "Beijing–Shanghai high-speed railway",
          "Time zone"],
         ["Cities in China", "Capitals"], ["Peking"]),
    _art("Shanghai",
         "Shanghai is China's most populous city, home to roughly 24.9 million people on the Yangtze River "
         "Delta where the Huangpu River meets the sea. It is a global centre of finance, trade and shipping.",
         [("Economy", "The Port of Shanghai has been the busiest container port in the world since 2010. "
                      "The Lujiazui district in Pudong holds the main financial institutions and the "
                      "Shanghai Tower, which at 632 metres is the tallest building in China."),
          ("Transport", "Shanghai Hongqiao is the main station for high-speed trains to Beijing, Hangzhou "
                        "and Wuhan, and sits beside an airport of the same name. The Shanghai maglev train "
                        "links the metro at Longyang Road with Pudong International Airport."),
          ("Landmarks", "The Bund, a riverside promenade of early twentieth-century banks and trading "
                        "houses, faces the Pudong skyline across the Huangpu. Yu Garden is a classical "
                        "garden first laid out in the sixteenth century.")],
         ["Shanghai maglev train", "Beijing–Shanghai high-speed railway", "Hangzhou", "Monsoon"],
         ["Cities in China"]),
    _art("Xi'an",
         "Xi'an is the capital of Shaanxi province in north-western China. As Chang'an it was the capital "
         "of thirteen dynasties and the eastern end of the Silk Road.",
         [("History", "The city reached its height under the Tang dynasty, when it was among the largest "
                      "cities in the world. The present city wall, about 13.7 kilometres around, was built "
                      "early in the Ming dynasty and is one of the best preserved in China."),
          ("Tourism", "The Terracotta Army, found in 1974 east of the city, draws millions of visitors a "
                      "year. The Shaanxi History Museum and the Big Wild Goose Pagoda are other highlights."),
          ("Transport", "Xi'an North station lies on the high-speed lines to Zhengzhou, Lanzhou and "
                        "Chengdu, while the older Xi'an station handles conventional trains.")],
         ["Terracotta Army", "Silk Road", "Chengdu", "High-speed rail in China"],
         ["Cities in China"], ["Chang'an", "Xian"]),
    _art("Chengdu",
         "Chengdu is the capital of Sichuan province and the largest city of south-western China. It is "
         "known for its relaxed teahouse culture, spicy Sichuan cooking and giant pandas.",
         [("Pandas", "The Chengdu Research Base of Giant Panda Breeding, founded in 1987, keeps and breeds "
                     "giant pandas on a hillside north of the city centre and is one of the most visited "
                     "sites in the province."),
          ("History", "The Dujiangyan irrigation system, built around 256 BCE about 60 kilometres away, "
                      "still waters the Chengdu Plain and made the region one of China's richest farm "
                      "areas."),
          ("Transport", "Chengdu East is the main high-speed station, with lines to Chongqing, Wuhan and "
                        "Shanghai and, since 2017, across the Qinling Mountains to Xi'an.")],
         ["Giant panda", "Xi'an", "High-speed rail in China"],
         ["Cities in China"]),
    _art("Hangzhou",
         "Hangzhou is the capital of Zhejiang province, about 160 kilometres south-west of Shanghai. It is "
         "famed for West Lake and lies at the southern end of the Grand Canal.",
         [("West Lake", "West Lake, ringed by hills, temples and causeways, was listed as a UNESCO World "
                        "Heritage Site in 2011. Longjing tea, one of China's best-known green teas, grows on "
                        "the hills to its west."),
          ("Modern city", "Hangzhou hosted the G20 summit in 2016 and the 19th Asian Games, which were "
                          "postponed from 2022 and held in 2023. It is also a centre of China's internet "
                          "industry."),
          ("Transport", "Hangzhou East is one of the largest stations in the country, with high-speed "
                        "trains to Shanghai, to Fuzhou and Shenzhen along the coast, and west to Changsha "
                        "and Kunming.")],
         ["Shanghai", "High-speed rail in China"],
         ["Cities in China"]),
    _art("Harbin",
         "Harbin is the capital of Heilongjiang, China's north-easternmost province. Its long, severe "
         "winters gave it the nickname Ice City.",
         [("Ice festival", "The Harbin International Ice and Snow Sculpture Festival opens each year on 5 "
                           "January and runs for about a month, with buildings carved from blocks of ice cut "
                           "from the Songhua River."),
          ("Architecture", "The city grew around the Chinese Eastern Railway built by Russia around 1900, "
                           "and Russian-era buildings such as the Church of Saint Sophia, first built in 1907 "
                           "and rebuilt in brick by 1932, still stand in the centre."),
          ("Climate", "January daytime highs usually stay well below minus ten degrees Celsius, while "
                      "summers are short and warm. Harbin hosted the Asian Winter Games in 2025.")],
         ["Beijing", "High-speed rail in China"],
         ["Cities in China"]),
    _art("Tokyo",
         "Tokyo is the capital of Japan and the core of the world's most populous metropolitan area, with "
         "about 37 million people. It was called Edo until 1868, when the emperor moved there from Kyoto.",
         [("History", "Edo grew from a fishing village into the seat of the Tokugawa shogunate. After the "
                      "Meiji Restoration the city was renamed Tokyo, meaning eastern capital."),
          ("Transport", "Tokyo station is the main terminus of the Shinkansen network, and the city's "
                        "rail and subway system carries more passengers than any other in the world."),
          ("Events", "Tokyo hosted the Summer Olympics in 1964 and again in 2021, the latter postponed "
                     "from 2020. Tokyo Skytree, 634 metres tall, opened in 2012.")],
         ["Shinkansen", "Kyoto", "Time zone"],
         ["Cities in Japan", "Capitals"], ["Edo"]),
    _art("Kyoto",
         "Kyoto was the imperial capital of Japan from 794 until 1868. It preserves about 1,600 Buddhist "
         "temples and 400 Shinto shrines.",
         [("Heritage", "Seventeen temples, shrines and a castle in and around the city were inscribed "
                       "together as the Historic Monuments of Ancient Kyoto in 1994. Fushimi Inari Shrine, "
                       "with its tunnels of thousands of vermilion torii gates, is the most visited."),
          ("Diplomacy", "The Kyoto Protocol, an international climate treaty that set binding emission "
                        "targets for industrialised countries, was adopted in the city in 1997."),
          ("Transport", "Kyoto lies on the Tokaido Shinkansen, roughly two hours and fifteen minutes from "
                        "Tokyo on the fastest Nozomi services.")],
         ["Tokyo", "Shinkansen"],
         ["Cities in Japan"], ["Heian-kyo"]),
    _art("London",
         "London is the capital and largest city of the United Kingdom, standing on the River Thames. Its "
         "borough of Greenwich gives its name to Greenwich Mean Time.",
         [("Greenwich", "An international conference in 1884 chose the meridian through the Royal "
                        "Observatory at Greenwich as the prime meridian, the zero line of longitude from "
                        "which time zones were later counted."),
          ("Museums", "The British Museum, founded in 1753, was the first national public museum in the "
                      "world and admission has been free since it opened."),
          ("Time", "London keeps Greenwich Mean Time in winter and British Summer Time, one hour ahead, "
                   "from the last Sunday of March to the last Sunday of October.")],
         ["Coordinated Universal Time", "Time zone", "Daylight saving time"],
         ["Cities in Europe", "Capitals"]),
    _art("Reykjavik",
         "Reykjavik is the capital of Iceland and the northernmost capital of a sovereign state. About "
         "two thirds of Iceland's people live in and around the city.",
         [("Energy", "Almost every building in the city is heated with water from geothermal wells, and "
                     "Iceland's electricity comes almost entirely from hydropower and geothermal plants."),
          ("Landmarks", "Hallgrimskirkja, a concrete church whose tower rises 74.5 metres, is visible "
                        "across the city. Geysir and Strokkur lie a few hours' drive to the east."),
          ("Time", "Iceland keeps UTC all year round and has not used daylight saving time since 1968, "
                   "even though its longitude would place it an hour or more behind.")],
         ["Geyser", "Plate tectonics", "Coordinated Universal Time", "Daylight saving time"],
         ["Cities in Europe", "Capitals"], ["Reykjavík"]),
    # ----------------------------------------------------------------- rail
    _art("High-speed rail in China",
         "China has the largest high-speed rail network in the world, with more than 45,000 kilometres of "
         "line by the end of 2023. Trains on it are run by China Railway.",
         [("History", "The first purpose-built high-speed line, the Beijing–Tianjin intercity railway, "
                      "opened in August 2008 just before the Beijing Olympics. Trunk lines such as "
                      "Beijing–Shanghai and Beijing–Guangzhou followed within a few years."),
          ("Train classes", "Train numbers begin with a letter. G trains run on dedicated high-speed lines "
                            "at up to 350 km/h, D trains are slightly slower electric multiple units at up "
                            "to 250 km/h, and C trains serve short intercity routes. Conventional trains "
                            "carry letters such as Z, T and K; K trains are the slowest and often run "
                            "overnight with sleeper berths."),
          ("Ticketing", "Tickets are sold with real names through the 12306 system, usually up to 15 days "
                        "in advance. Seats on G trains come in business, first and second class.")],
         ["Beijing–Shanghai high-speed railway", "Fuxing Hao", "Shanghai maglev train", "Shinkansen",
          "Beijing"],
         ["Rail transport", "Transport in China"], ["China high-speed rail", "CRH"]),
    _art("Beijing–Shanghai high-speed railway",
         "The Beijing–Shanghai high-speed railway is a 1,318-kilometre line between Beijing South and "
         "Shanghai Hongqiao stations. It opened on 30 June 2011.",
         [("Route", "The line runs through Tianjin, Jinan, Xuzhou, Nanjing and Suzhou and has 24 "
                    "stations. Its Danyang–Kunshan Grand Bridge, at about 164 kilometres, is the longest "
                    "bridge in the world."),
          ("Service", "The fastest trains, numbered from G1 upwards, cover the route in about four and a "
                      "half hours or less with one or two stops, while trains calling at most stations take around "
                      "six hours. Fuxing trains returned the line to 350 km/h operation in 2017."),
          ("Traffic", "It is among the busiest high-speed lines in the world and one of the few that "
                      "reports an operating profit.")],
         ["High-speed rail in China", "Fuxing Hao", "Beijing", "Shanghai"],
         ["Rail transport", "Transport in China"], ["Jinghu high-speed railway"]),
    _art("Fuxing Hao",
         "Fuxing Hao, meaning rejuvenation, is a family of Chinese high-speed trains designed to a common "
         "national standard. The CR400AF and CR400BF models entered service in June 2017.",
         [("Design", "The trains were developed to replace the mix of imported designs used earlier, with "
                     "parts that are interchangeable between manufacturers and a longer design life."),
          ("Operation", "From September 2017 Fuxing trains ran at 350 km/h on the Beijing–Shanghai "
                        "high-speed railway, the fastest scheduled wheeled service in the world at the "
                        "time.")],
         ["High-speed rail in China", "Beijing–Shanghai high-speed railway"],
         ["Rail transport"], ["CR400"]),
    _art("Shanghai maglev train",
         "The Shanghai maglev train is a magnetic levitation line that links Longyang Road station with "
         "Pudong International Airport over about 30.5 kilometres. Commercial service began in 2004.",
         [("Technology", "The train floats above its guideway on electromagnets and is driven by a linear "
                         "motor, so there are no wheels in contact with a rail."),
          ("Speed", "At its peak the line ran at 431 km/h and completed the trip in about seven and a "
                    "half minutes. Since 2021 most runs have been limited to 300 km/h.")],
         ["Shanghai", "High-speed rail in China", "Shinkansen"],
         ["Rail transport", "Magnetic levitation"], ["Shanghai Transrapid"]),
    _art("Shinkansen",
         "The Shinkansen is Japan's network of high-speed railway lines. The first line, the Tokaido "
         "Shinkansen between Tokyo and Shin-Osaka, opened on 1 October 1964.",
         [("Network", "The network now reaches from Hokkaido to Kyushu. The Tokaido line, about 515 "
                      "kilometres long, remains the busiest high-speed line in the world."),
          ("Safety", "In its whole history no passenger has died in a derailment or collision on a "
                     "Shinkansen train, helped by dedicated track and an earthquake detection system that "
                     "cuts power to trains."),
          ("Services", "On the Tokaido line the Nozomi is the fastest service, the Hikari makes a few more "
                       "stops, and the Kodama calls at every station.")],
         ["Tokyo", "Kyoto", "High-speed rail in China", "Shanghai maglev train"],
         ["Rail transport", "Transport in Japan"], ["Bullet train"]),
    # ----------------------------------------------------------------- parks
    _art("National Park Service",
         "The National Park Service is the agency of the United States Department of the Interior that "
         "manages the country's national parks and many other protected sites. It was created on 25 August "
         "1916.",
         [("Origins", "Although Yellowstone became the first national park in 1872, the parks were run by "
                      "the army and separate superintendents until the Organic Act of 1916 put them under "
                      "one civilian agency."),
          ("Units", "The service manages more than 400 units, of which 63 carry the title national park; "
                    "the others include monuments, battlefields, seashores and historic sites."),
          ("Fees", "Many parks charge an entrance fee per vehicle valid for seven days, and an annual "
                   "interagency pass covers entry to all of them.")],
         ["Yellowstone National Park", "Yosemite National Park", "Grand Canyon", "John Muir"],
         ["National parks of the United States"], ["NPS"]),
    _art("Yellowstone National Park",
         "Yellowstone National Park was established on 1 March 1872 as the first national park in the "
         "world. It lies mostly in Wyoming, with edges in Montana and Idaho, and covers about 2.2 million "
         "acres.",
         [("Geology", "The park sits above a volcanic hotspot whose last caldera-forming eruption happened "
                      "about 640,000 years ago. Its heat feeds more than 10,000 hydrothermal features, "
                      "including about half of the world's geysers."),
          ("Wildlife", "Yellowstone holds the largest population of wild bison in the United States, and "
                       "grey wolves were reintroduced there in 1995."),
          ("Visiting", "Most park roads close to cars from early November to late April, when the park "
                       "can be reached only by snowcoach or snowmobile tours.")],
         ["Old Faithful", "Geyser", "National Park Service", "Volcano"],
         ["National parks of the United States"], ["Yellowstone"]),
    _art("Old Faithful",
         "Old Faithful is a cone geyser in Yellowstone National Park, named in 1870 for the regularity of "
         "its eruptions. It erupts roughly every 60 to 110 minutes.",
         [("Eruptions", "An eruption lasts from one and a half to five minutes and throws water 30 to 56 "
                        "metres into the air. Longer eruptions are followed by longer waits, which lets "
                        "rangers predict the next one."),
          ("Prediction", "Predictions are posted at the nearby visitor education center and are usually "
                         "accurate to within about ten minutes.")],
         ["Yellowstone National Park", "Geyser"],
         ["Geysers"]),
    _art("Yosemite National Park",
         "Yosemite National Park in California's Sierra Nevada protects granite cliffs, waterfalls and "
         "giant sequoia groves over about 759,620 acres. It became a national park in 1890.",
         [("History", "In 1864 President Lincoln signed the Yosemite Grant, setting aside the valley and "
                      "the Mariposa Grove for public use, the first time the federal government protected "
                      "land for its scenery. John Muir's campaigning led to the surrounding national park."),
          ("Landmarks", "El Capitan and Half Dome tower over Yosemite Valley. Yosemite Falls, at 739 "
                        "metres, is among the tallest waterfalls in North America and flows strongest in "
                        "May and June."),
          ("Access", "Tioga Road across the high country usually opens only from late May or June to "
                     "November because of snow.")],
         ["El Capitan", "John Muir", "National Park Service", "Glacier"],
         ["National parks of the United States"], ["Yosemite"]),
    _art("El Capitan",
         "El Capitan is a granite monolith on the north side of Yosemite Valley, rising about 900 metres "
         "from base to summit. It is one of the most famous big-wall climbing sites in the world.",
         [("Climbing", "The first ascent, by Warren Harding's team in 1958, took 47 days spread over "
                       "eighteen months. In 2017 Alex Honnold climbed the Freerider route without ropes in "
                       "just under four hours."),
          ("Geology", "The cliff is made mostly of granite that cooled deep underground around 100 million "
                      "years ago and was later exposed and polished by glaciers.")],
         ["Yosemite National Park", "Glacier"],
         ["Mountains of California"]),
    _art("Grand Canyon",
         "The Grand Canyon is a steep-sided gorge carved by the Colorado River in Arizona. It is about 446 "
         "kilometres long, up to 29 kilometres wide and more than 1,800 metres deep.",
         [("Geology", "Its walls expose layers of rock spanning nearly two billion years, while the canyon "
                      "itself was cut within the last five to six million years."),
          ("Park", "Grand Canyon National Park was established in 1919. Arizona does not observe "
                   "daylight saving time, so in summer the South Rim keeps the same clock as California."),
          ("Rims", "The South Rim is open all year and receives most visitors. The North Rim, about 300 "
                   "metres higher, is usually open only from mid-May to mid-October.")],
         ["National Park Service", "Daylight saving time", "Plate tectonics"],
         ["National parks of the United States", "Canyons"], ["Grand Canyon National Park"]),
    _art("Zion National Park",
         "Zion National Park in south-western Utah protects Zion Canyon, a gorge cut into Navajo sandstone "
         "by the Virgin River. It was Utah's first national park, designated in 1919.",
         [("History", "The area was first protected in 1909 as Mukuntuweap National Monument and renamed "
                      "Zion before becoming a national park."),
          ("Hiking", "The Narrows, where hikers wade up the river between walls hundreds of metres high, "
                     "and Angels Landing, a narrow ridge with chains, are the best-known routes. Angels "
                     "Landing has required a permit since 2022."),
          ("Shuttle", "From spring to autumn private vehicles are not allowed on the Zion Canyon Scenic "
                      "Drive, and visitors ride a free shuttle from the visitor center in Springdale.")],
         ["National Park Service", "Grand Canyon"],
         ["National parks of the United States"], ["Zion"]),
    _art("Great Smoky Mountains National Park",
         "Great Smoky Mountains National Park straddles the border of North Carolina and Tennessee and is "
         "the most visited national park in the United States. It was established in 1934.",
         [("Nature", "The park is known for the bluish haze over its ridges, made by compounds given off by "
                     "the forest, and for the greatest diversity of salamanders in the world."),
          ("Fees", "Because of conditions attached to land donated by Tennessee, the park charges no "
                   "entrance fee, although a parking tag has been required since 2023."),
          ("Summit", "Clingmans Dome, at 2,025 metres, is the highest point in the park and in Tennessee.")],
         ["National Park Service"],
         ["National parks of the United States"], ["Smoky Mountains"]),
    _art("Crater Lake",
         "Crater Lake in southern Oregon fills a caldera formed about 7,700 years ago when the volcano "
         "Mount Mazama erupted and collapsed. At 594 metres it is the deepest lake in the United States.",
         [("Water", "The lake has no inlets or outlets and is fed by rain and snow, which keeps it "
                    "exceptionally clear and deep blue."),
          ("Park", "Crater Lake National Park was established in 1902. Snowfall averages more than 11 "
                   "metres a year, so the full Rim Drive is usually open only from July to October.")],
         ["Volcano", "National Park Service"],
         ["National parks of the United States", "Lakes"], ["Crater Lake National Park"]),
    _art("John Muir",
         "John Muir (1838–1914) was a Scottish-born American naturalist and writer whose advocacy helped "
         "create Yosemite National Park. He co-founded the Sierra Club in 1892 and was its first president.",
         [("Life", "Muir emigrated to Wisconsin as a boy and arrived in California in 1868. He spent years "
                   "exploring the Sierra Nevada and argued that glaciers had shaped Yosemite Valley."),
          ("Legacy", "His writing and a 1903 camping trip with President Theodore Roosevelt helped build "
                     "support for national parks and forests.")],
         ["Yosemite National Park", "National Park Service", "Glacier"],
         ["Naturalists"]),
    # ----------------------------------------------------------------- time
    _art("Coordinated Universal Time",
         "Coordinated Universal Time (UTC) is the primary time standard by which the world regulates clocks. "
         "It is kept by atomic clocks and stays within 0.9 seconds of mean solar time at Greenwich.",
         [("Leap seconds", "To stay close to the Earth's slightly irregular rotation, leap seconds have been "
                           "inserted since 1972, the most recent at the end of 2016. In 2022 the General "
                           "Conference on Weights and Measures decided to stop adding them by 2035."),
          ("Relation to GMT", "For everyday purposes UTC and Greenwich Mean Time show the same time, but GMT "
                              "is a time zone while UTC is a standard; time zones are written as offsets "
                              "from UTC such as UTC+08:00."),
          ("Abbreviation", "The abbreviation UTC was chosen as a compromise between the English and French "
                           "word orders, so that it would be the same in every language.")],
         ["Time zone", "Unix time", "ISO 8601", "London"],
         ["Timekeeping"], ["UTC", "Greenwich Mean Time", "GMT"]),
    _art("Time zone",
         "A time zone is a region that keeps the same standard time, usually expressed as an offset from "
         "Coordinated Universal Time. Most offsets are whole hours, but some are half or quarter hours.",
         [("Offsets", "Offsets range from UTC−12:00 to UTC+14:00. India uses UTC+05:30 and Nepal UTC+05:45, "
                      "while the Line Islands of Kiribati are the first to start each new day."),
          ("China", "Although China spans about five geographical time zones, the whole country officially "
                    "keeps Beijing Time, UTC+08:00, so the sun rises very late in the far west."),
          ("Database", "Software usually relies on the IANA time zone database, which names zones after "
                       "cities, such as Asia/Shanghai or America/New_York, and records every historical "
                       "change of offset and daylight saving rule.")],
         ["Coordinated Universal Time", "Daylight saving time", "International Date Line", "Beijing"],
         ["Timekeeping"], ["Time zones"]),
    _art("Daylight saving time",
         "Daylight saving time is the practice of setting clocks forward, usually by one hour, during the "
         "warmer months so that evenings have more daylight. About 70 countries use it.",
         [("Rules", "In most of the United States and Canada clocks go forward on the second Sunday in "
                    "March and back on the first Sunday in November. The European Union changes on the "
                    "last Sundays of March and October."),
          ("Exceptions", "Hawaii and most of Arizona stay on standard time all year. China tried daylight "
                         "saving from 1986 to 1991 and then dropped it, and Japan does not use it."),
          ("Debate", "Supporters cite lower energy use and more evening leisure, while critics point to "
                     "disrupted sleep and a rise in accidents just after the spring change.")],
         ["Time zone", "Coordinated Universal Time", "Grand Canyon", "London"],
         ["Timekeeping"], ["DST", "Summer time"]),
    _art("Leap year",
         "A leap year is a calendar year with an extra day, added to keep the calendar in step with the "
         "astronomical year. In the Gregorian calendar the extra day is 29 February.",
         [("Rule", "A year is a leap year if it is divisible by 4, except that years divisible by 100 are "
                   "not, unless they are also divisible by 400. So 2000 was a leap year but 1900 was not."),
          ("Upcoming", "After 2024, the next leap years are 2028, 2032 and 2036. A leap year has 366 days.")],
         ["Gregorian calendar", "ISO 8601"],
         ["Calendars"], ["Leap day"]),
    _art("Gregorian calendar",
         "The Gregorian calendar is the calendar used in most of the world. Pope Gregory XIII introduced it "
         "in October 1582 to correct drift in the Julian calendar.",
         [("Reform", "Ten days were dropped so that Thursday 4 October 1582 was followed by Friday 15 "
                     "October, and the leap year rule was changed to skip three leap days every 400 years."),
          ("Adoption", "Catholic countries switched at once, Britain and its colonies only in 1752, and "
                       "China adopted the Gregorian calendar for official use in 1912.")],
         ["Leap year", "ISO 8601"],
         ["Calendars"], ["Western calendar"]),
    _art("International Date Line",
         "The International Date Line is an imaginary line on the Earth's surface, running mostly along the "
         "180th meridian, where the calendar date changes by one day.",
         [("Crossing", "Travelling west across the line adds a day to the date, and travelling east "
                       "subtracts one."),
          ("Shifts", "The line bends around island groups. Kiribati moved all its islands to the western "
                     "side at the start of 1995, and Samoa skipped 30 December 2011 to align its week with "
                     "Australia and New Zealand.")],
         ["Time zone", "Coordinated Universal Time"],
         ["Timekeeping"], ["Date line"]),
    _art("Unix time",
         "Unix time counts the seconds elapsed since 00:00:00 UTC on 1 January 1970, the Unix epoch, "
         "ignoring leap seconds. It is the standard way computers store timestamps.",
         [("Year 2038 problem", "Systems that keep Unix time in a signed 32-bit integer overflow at "
                                "03:14:07 UTC on 19 January 2038, after which the count wraps to a date in "
                                "1901. Most modern systems now use 64-bit values."),
          ("Leap seconds", "Because every Unix day has exactly 86,400 seconds, a leap second is absorbed by "
                           "repeating or smearing a second rather than being counted.")],
         ["Coordinated Universal Time", "ISO 8601"],
         ["Timekeeping", "Computing"], ["POSIX time", "Epoch time"]),
    _art("ISO 8601",
         "ISO 8601 is an international standard for writing dates and times so that they can be exchanged "
         "without ambiguity. It was first published in 1988.",
         [("Format", "Dates are written from the largest unit to the smallest, as in 2026-04-13, and times "
                     "use the 24-hour clock, as in 09:30:00. A suffix Z or an offset such as +08:00 ties a "
                     "time to UTC."),
          ("Durations and weeks", "Durations are written with a leading P, so P3D means three days and "
                                  "PT2H30M two and a half hours. Week dates such as 2026-W16-1 count weeks "
                                  "from Monday, with week 1 containing the year's first Thursday.")],
         ["Coordinated Universal Time", "Unix time", "Gregorian calendar"],
         ["Standards", "Timekeeping"], ["ISO date format"]),
    # ----------------------------------------------------------------- weather and earth
    _art("Monsoon",
         "A monsoon is a seasonal reversal of prevailing winds that brings a marked wet season. The South "
         "Asian and East Asian monsoons affect the lives of billions of people.",
         [("South Asia", "In India the summer monsoon usually reaches Kerala around 1 June and covers the "
                         "country by early July, delivering most of the year's rain before it withdraws in "
                         "September and October."),
          ("East Asia", "In China the rain band known as meiyu or plum rain settles over the Yangtze valley "
                        "in June and July, bringing long spells of humid, cloudy weather to cities such as "
                        "Shanghai, Nanjing and Wuhan.")],
         ["Tropical cyclone", "Jet stream", "Shanghai"],
         ["Weather", "Climate"], ["Monsoon season"]),
    _art("Tropical cyclone",
         "A tropical cyclone is a rapidly rotating storm system with a low-pressure centre that forms over "
         "warm tropical oceans. Depending on the region it is called a hurricane, a typhoon or a cyclone.",
         [("Names", "Storms are called hurricanes in the North Atlantic and north-eastern Pacific, typhoons "
                    "in the north-western Pacific, and cyclones in the Indian Ocean and South Pacific."),
          ("Strength", "A storm is classed as a hurricane or typhoon once sustained winds reach 119 km/h. "
                       "The Saffir–Simpson scale ranks Atlantic hurricanes from category 1 to 5, the top "
                       "category starting at 252 km/h."),
          ("Season", "In the western Pacific typhoons are most frequent from July to October, when they "
                     "often affect southern China, Taiwan and Japan.")],
         ["Monsoon", "Jet stream"],
         ["Weather"], ["Hurricane", "Typhoon"]),
    _art("Jet stream",
         "Jet streams are narrow bands of strong westerly wind in the upper atmosphere, usually found 9 to "
         "16 kilometres above the surface. They steer weather systems around the globe.",
         [("Types", "Each hemisphere has a polar jet and a weaker subtropical jet. Wind speeds in the core "
                    "often exceed 200 km/h and can pass 400 km/h in winter."),
          ("Aviation", "Eastbound flights across the Atlantic and Pacific ride the jet stream to save time "
                       "and fuel, which is why flying east is often an hour or more faster than the return.")],
         ["Monsoon", "Tropical cyclone"],
         ["Weather"], ["Jetstream"]),
    _art("Air quality index",
         "An air quality index turns measurements of several pollutants into a single number that tells "
         "the public how polluted the air is. Higher values mean greater health risk.",
         [("Scale", "The widely copied United States scale runs from 0 to 500: 0–50 is good, 51–100 "
                    "moderate, 101–150 unhealthy for sensitive groups, 151–200 unhealthy, 201–300 very "
                    "unhealthy and above 300 hazardous."),
          ("Pollutants", "The index is computed separately for fine particles (PM2.5), coarse particles "
                         "(PM10), ozone, nitrogen dioxide, sulphur dioxide and carbon monoxide, and the "
                         "highest sub-index is reported.")],
         ["Monsoon", "Jet stream"],
         ["Weather", "Health"], ["AQI"]),
    _art("Geyser",
         "A geyser is a hot spring that periodically erupts a column of water and steam. About 1,000 active "
         "geysers exist, roughly half of them in Yellowstone National Park.",
         [("Mechanism", "A geyser needs a heat source, plenty of groundwater and a constricted plumbing "
                        "system. Water deep in the conduit is heated above its surface boiling point until "
                        "it flashes to steam and forces the column above it out."),
          ("Notable geysers", "Steamboat Geyser in Yellowstone is the tallest active geyser, with major "
                              "eruptions above 90 metres. Strokkur in Iceland erupts every five to ten "
                              "minutes, and the word geyser itself comes from Iceland's Geysir.")],
         ["Old Faithful", "Yellowstone National Park", "Reykjavik", "Volcano"],
         ["Geology"], ["Geysers"]),
    _art("Plate tectonics",
         "Plate tectonics is the theory that the Earth's rigid outer shell is broken into plates that move "
         "slowly over the mantle. It explains earthquakes, volcanoes and mountain building.",
         [("Plates", "There are seven or eight major plates and many smaller ones, moving a few centimetres "
                     "a year, about as fast as fingernails grow."),
          ("History", "Alfred Wegener proposed continental drift in 1912, but it was widely accepted only "
                      "in the 1960s, after mapping of the sea floor revealed spreading ridges.")],
         ["Volcano", "Geyser", "Reykjavik"],
         ["Geology"], ["Continental drift"]),
    _art("Glacier",
         "A glacier is a persistent body of dense ice that moves under its own weight. Glaciers and ice "
         "sheets hold about 69 percent of the world's fresh water.",
         [("Formation", "Glaciers form where snow accumulates faster than it melts over many years and is "
                        "compressed into ice. They carve U-shaped valleys such as Yosemite Valley."),
          ("Retreat", "Most mountain glaciers have shrunk since the late nineteenth century. Glacier "
                      "National Park in Montana had about 150 glaciers in 1850 and fewer than 30 today.")],
         ["Yosemite National Park", "El Capitan", "John Muir"],
         ["Geology", "Climate"], ["Glaciers"]),
    _art("Volcano",
         "A volcano is an opening in a planet's crust through which molten rock, ash and gases escape. Most "
         "volcanoes lie along the boundaries of tectonic plates, while some sit over hotspots.",
         [("Types", "Shield volcanoes such as Kilauea and Mauna Loa in Hawaii are built from fluid lava "
                    "flows, while steep stratovolcanoes such as Mount Rainier erupt more explosively."),
          ("Calderas", "When a large eruption empties the magma chamber, the summit can collapse into a "
                       "caldera, as happened at Mount Mazama, now filled by Crater Lake, and at "
                       "Yellowstone.")],
         ["Plate tectonics", "Crater Lake", "Yellowstone National Park", "Geyser", "Java (island)"],
         ["Geology"], ["Volcanoes"]),
    # ----------------------------------------------------------------- computing and machine learning
    _art("Transformer (machine learning)",
         "The transformer is a neural network architecture built around self-attention instead of "
         "recurrence. It was introduced in 2017 in the paper Attention Is All You Need by researchers at "
         "Google.",
         [("Architecture", "A transformer processes all positions of a sequence in parallel. Each layer "
                           "combines multi-head self-attention with a position-wise feed-forward network, "
                           "and positional encodings supply word order."),
          ("Models", "Encoder models such as BERT (2018) and decoder models such as the GPT series are both "
                     "built from transformer layers, and the design now underlies most large language "
                     "models."),
          ("Limits", "Self-attention cost grows with the square of the sequence length, which motivated "
                     "many sparse and linear attention variants.")],
         ["Attention (machine learning)", "Large language model", "Neural network"],
         ["Machine learning"], ["Transformer model"]),
    _art("Attention (machine learning)",
         "Attention is a technique that lets a neural network weigh the parts of its input by relevance "
         "when producing each output. It was popularised for machine translation in 2014.",
         [("Origins", "Bahdanau, Cho and Bengio added attention to recurrent encoder–decoder models so "
                      "that the decoder could look back at every source word instead of a single fixed "
                      "summary vector."),
          ("Mechanism", "In scaled dot-product attention each query is compared with every key, the scores "
                        "are turned into weights with a softmax, and the output is the weighted sum of the "
                        "values.")],
         ["Transformer (machine learning)", "Neural network"],
         ["Machine learning"], ["Attention mechanism"]),
    _art("Large language model",
         "A large language model is a neural network trained on very large amounts of text to predict the "
         "next token. Such models can answer questions, write text and call tools.",
         [("Scale", "GPT-3, released in 2020, had 175 billion parameters and showed that very large models "
                    "could perform new tasks from a few examples in the prompt."),
          ("Tool use", "Language models can be connected to external tools and data sources. The Model "
                       "Context Protocol, published in late 2024, standardises how an application exposes "
                       "tools to a model through servers."),
          ("Training", "After pre-training, models are usually instruction-tuned and aligned with human "
                       "feedback, for example through reinforcement learning.")],
         ["Transformer (machine learning)", "Reinforcement learning", "Neural network",
          "Python (programming language)"],
         ["Machine learning"], ["LLM"]),
    _art("Reinforcement learning",
         "Reinforcement learning is an area of machine learning in which an agent learns to act in an "
         "environment by trial and error so as to maximise a cumulative reward.",
         [("Methods", "Q-learning, introduced by Watkins in 1989, learns the value of each action in each "
                      "state; policy-gradient methods instead adjust the policy directly."),
          ("Milestones", "DeepMind's AlphaGo, trained partly by self-play, beat the Go champion Lee Sedol "
                         "four games to one in March 2016.")],
         ["Neural network", "Large language model"],
         ["Machine learning"], ["RL"]),
    _art("Neural network",
         "An artificial neural network is a model made of connected units, or neurons, whose connection "
         "weights are learned from data. Deep learning uses networks with many layers.",
         [("History", "Frank Rosenblatt built the perceptron in 1958. Backpropagation, popularised in 1986 "
                      "by Rumelhart, Hinton and Williams, made multi-layer networks trainable."),
          ("Deep learning", "Interest surged after 2012, when a deep convolutional network won the ImageNet "
                            "image recognition challenge by a wide margin.")],
         ["Transformer (machine learning)", "Attention (machine learning)", "Reinforcement learning"],
         ["Machine learning"], ["Artificial neural network"]),
    # ----------------------------------------------------------------- homonyms
    _disambig("Mercury", "Mercury may refer to the planet closest to the Sun, the chemical element with "
                         "symbol Hg, or the Roman messenger god.",
              ["Mercury (planet)", "Mercury (element)", "Mercury (mythology)"]),
    _art("Mercury (planet)",
         "Mercury is the smallest planet in the Solar System and the closest to the Sun. It orbits the Sun "
         "every 88 Earth days.",
         [("Physical characteristics", "Mercury is about 4,880 kilometres across, only slightly larger than "
                                       "the Moon. With almost no atmosphere, its surface swings from about "
                                       "430 °C by day to minus 180 °C at night."),
          ("Rotation", "The planet turns three times on its axis for every two orbits, so one solar day "
                       "on Mercury, from noon to noon, lasts about 176 Earth days."),
          ("Exploration", "MESSENGER orbited Mercury from 2011 to 2015. The European–Japanese BepiColombo "
                          "mission, launched in 2018, is due to enter orbit around the planet in late "
                          "2026.")],
         ["Mercury (mythology)", "Mercury"],
         ["Planets"], []),
    _art("Mercury (element)",
         "Mercury is a chemical element with the symbol Hg and atomic number 80. It is the only metal that "
         "is liquid at standard room temperature and pressure.",
         [("Properties", "Mercury melts at −38.83 °C and boils at 356.7 °C. Its high density, about 13.5 "
                         "times that of water, made it useful in barometers."),
          ("Toxicity", "Mercury and its compounds are toxic, especially methylmercury, which builds up in "
                       "fish. The Minamata Convention of 2013 phases out many uses, including most mercury "
                       "thermometers.")],
         ["Mercury"],
         ["Chemical elements"], ["Hg", "Quicksilver"]),
    _art("Mercury (mythology)",
         "Mercury is the Roman god of trade, travellers, messages and thieves, the counterpart of the Greek "
         "god Hermes. He is shown with winged sandals and a winged hat.",
         [("Attributes", "He carries the caduceus, a staff twined by two snakes, and acts as messenger of "
                         "the gods and guide of souls to the underworld."),
          ("Legacy", "The planet Mercury, the fastest to circle the Sun, is named after him, and so is "
                     "Wednesday in several Romance languages, such as mercredi in French.")],
         ["Mercury (planet)", "Mercury"],
         ["Roman gods"], ["Mercurius"]),
    _disambig("Java", "Java may refer to the Indonesian island or to the programming language.",
              ["Java (island)", "Java (programming language)"]),
    _art("Java (island)",
         "Java is an island of Indonesia and the most populous island in the world, with more than 150 "
         "million inhabitants. The capital, Jakarta, lies on its north-west coast.",
         [("Geography", "The island is formed by a chain of volcanoes, some 45 of them, including the very "
                        "active Mount Merapi. Volcanic soils make it extremely fertile."),
          ("Economy", "Coffee was planted on Java by the Dutch East India Company in the late seventeenth "
                      "century, which is why java became slang for coffee.")],
         ["Volcano", "Java", "Java (programming language)"],
         ["Islands of Indonesia"], []),
    _art("Java (programming language)",
         "Java is a general-purpose, object-oriented programming language released by Sun Microsystems in "
         "1995. Programs compile to bytecode that runs on the Java Virtual Machine.",
         [("History", "James Gosling led the team that created the language. Oracle became its steward "
                      "when it acquired Sun Microsystems in 2010."),
          ("Design", "The slogan write once, run anywhere referred to compiled bytecode running unchanged "
                     "on any system with a Java Virtual Machine. Memory is managed by garbage collection.")],
         ["Java", "Python (programming language)", "Java (island)"],
         ["Programming languages"], []),
    _disambig("Python", "Python may refer to the programming language or to the family of constricting "
                        "snakes.",
              ["Python (programming language)", "Python (snake)"]),
    _art("Python (programming language)",
         "Python is a high-level, general-purpose programming language that emphasises readable code. "
         "Guido van Rossum released the first version in 1991.",
         [("History", "The name comes from the comedy group Monty Python. Python 3.0 was released in "
                      "December 2008, and Python 2 reached end of life on 1 January 2020."),
          ("Use", "Python is among the most widely used languages, especially for data analysis, "
                  "scientific computing and machine learning, and many agent frameworks and MCP servers are "
                  "written in it.")],
         ["Python", "Java (programming language)", "Large language model"],
         ["Programming languages"], []),
    _art("Python (snake)",
         "Pythons are non-venomous snakes of the family Pythonidae that kill their prey by constriction. "
         "They live in Africa, Asia and Australia.",
         [("Size", "The reticulated python of south-east Asia is the longest snake in the world, with "
                   "individuals known to exceed six metres."),
          ("Invasive species", "Burmese pythons, released or escaped from the pet trade, have established "
                               "a breeding population in the Florida Everglades, where they have caused "
                               "steep declines in small mammals.")],
         ["Python", "Python (programming language)"],
         ["Snakes"], ["Pythonidae"]),
    # ----------------------------------------------------------------- China heritage
    _art("Great Wall of China",
         "The Great Wall of China is a series of fortifications built over some two thousand years across "
         "northern China. A 2012 survey measured all of its branches at about 21,196 kilometres.",
         [("History", "The best-preserved sections, of brick and stone, date from the Ming dynasty, which "
                      "rebuilt the wall after 1368 to defend against northern peoples."),
          ("Visiting", "Badaling and Mutianyu, both within about 80 kilometres of Beijing, are the most "
                       "visited sections. The wall was inscribed as a UNESCO World Heritage Site in 1987.")],
         ["Beijing", "Silk Road"],
         ["World Heritage Sites in China"], ["Great Wall"]),
    _art("Terracotta Army",
         "The Terracotta Army is a collection of life-size clay soldiers buried with Qin Shi Huang, the "
         "first emperor of China, around 210 BCE. It was discovered by farmers digging a well in 1974.",
         [("Figures", "The three main pits hold an estimated 8,000 soldiers together with horses and "
                      "chariots; no two faces are exactly alike."),
          ("Site", "The pits lie about 35 kilometres east of Xi'an and were inscribed as part of the "
                   "Mausoleum of the First Qin Emperor on the World Heritage List in 1987.")],
         ["Xi'an", "Great Wall of China"],
         ["World Heritage Sites in China"], ["Terracotta Warriors"]),
    _art("Silk Road",
         "The Silk Road was a network of trade routes linking China with Central Asia, the Middle East and "
         "the Mediterranean from the second century BCE. Chang'an, today's Xi'an, was its eastern end.",
         [("Name", "The German geographer Ferdinand von Richthofen coined the term Silk Road in 1877, "
                   "after silk, one of the most valuable goods carried west."),
          ("Heritage", "In 2014 a 5,000-kilometre section of the routes, the Chang'an–Tianshan corridor, "
                       "was inscribed as a World Heritage Site.")],
         ["Xi'an", "Great Wall of China"],
         ["Trade routes"], ["Silk Route"]),
    _art("Giant panda",
         "The giant panda is a bear native to the mountains of Sichuan, Shaanxi and Gansu in China. Bamboo "
         "makes up about 99 percent of its diet.",
         [("Conservation", "Thanks to forest protection and breeding programmes, the IUCN moved the giant "
                           "panda from endangered to vulnerable in 2016. Fewer than 2,000 live in the wild."),
          ("Breeding", "Centres such as the Chengdu Research Base of Giant Panda Breeding raise cubs and "
                       "lend pandas to zoos abroad.")],
         ["Chengdu"],
         ["Bears"], ["Panda"]),
    _art("Model Context Protocol",
         "The Model Context Protocol (MCP) is an open protocol that lets applications built on language "
         "models connect to tools and data through servers. Anthropic published it in November 2024.",
         [("Design", "A server lists tools with a name, a description and a JSON Schema for arguments; a "
                     "client connected to several servers gathers the tools and lets the model call them."),
          ("Transports", "Servers can run as local processes speaking over standard input and output, or "
                         "remotely over HTTP."),
          ("Evaluation", "Because agents choose among many tools from different servers, benchmarks test "
                         "whether they pick the right server when two tools share a name.")],
         ["Large language model", "Python (programming language)"],
         ["Computing"], ["MCP"]),
]


def _paper(pid: str, title: str, authors: list[str], year: int, venue: str, field: str, abstract: str,
           keywords: list[str], references: list[str], mirror: bool, method: str, dataset: str,
           findings: list[str]) -> dict[str, Any]:
    return {"id": pid, "title": title, "authors": authors, "year": year, "venue": venue, "field": field,
            "abstract": abstract, "keywords": keywords, "references": references, "mirror": mirror,
            "method": method, "dataset": dataset, "findings": findings}


PAPERS: list[dict[str, Any]] = [
    _paper("2106.01147", "Sparse Routing for Efficient Attention in Long Documents",
           ["Daniel Mensah", "Ines Carvalho", "Kai Brenner"], 2021, "ICML", "machine learning",
           "We route each query to a small set of key clusters so that attention over long documents costs "
           "close to linear time. The method keeps the quality of full attention on summarisation while "
           "processing inputs several times longer.",
           ["sparse attention", "long documents", "transformers", "efficiency"], [], True,
           "Keys are grouped by online k-means and each query attends only to its two nearest clusters.",
           "We evaluate on a corpus of 48,000 scientific articles averaging 9,300 tokens.",
           ["Routing cut attention memory by a factor of 5.8 on 16,384-token inputs.",
            "Summary quality stayed within 0.3 ROUGE-L of full attention."]),
    _paper("2110.04420", "Calibrated Uncertainty for Neural Weather Nowcasting",
           ["Priya Raman", "Oskar Lind", "Mei Tanaka"], 2021, "Journal of Applied Meteorology",
           "climate science",
           "Neural nowcasting models predict rain for the next few hours but tend to be overconfident. We "
           "add an ensemble of lightweight heads and a post-hoc temperature step that together produce "
           "well-calibrated rain probabilities.",
           ["nowcasting", "precipitation", "calibration", "ensembles"], [], True,
           "Eight prediction heads share one radar encoder, and their spread is rescaled on held-out days.",
           "We use three years of five-minute radar composites over eastern China.",
           ["Expected calibration error fell from 0.118 to 0.021 for one-hour rain forecasts.",
            "Skill was retained up to a lead time of 90 minutes."]),
    _paper("2203.08815", "Timetable Robustness under Cascading Delays on High-Speed Rail Networks",
           ["Zhou Mingyu", "Anna Kowalczyk", "Li Jiahui"], 2022,
           "Transportation Research Part C", "transportation",
           "A single late train on a dense high-speed corridor can delay dozens of others. We simulate "
           "delay propagation on a national network and show how modest buffer times at hub stations absorb "
           "most cascades.",
           ["railway timetabling", "delay propagation", "high-speed rail", "robustness"], [], True,
           "A discrete-event simulator replays a full day of train movements with random primary delays.",
           "The model covers 1,142 daily trains on six trunk corridors.",
           ["Adding three minutes of buffer at the five busiest hubs cut secondary delay minutes by 41%.",
            "Beyond five minutes of buffer the gains levelled off."]),
    _paper("2204.11002", "Retrieval-Augmented Question Answering over Encyclopedic Corpora",
           ["Ravi Deshpande", "Clara Nguyen", "Daniel Mensah"], 2022, "ACL", "machine learning",
           "We pair a dense passage retriever with a reader that cites the passages it uses. On questions "
           "that need two articles, retrieving section-level passages beats whole-article retrieval.",
           ["retrieval-augmented generation", "question answering", "encyclopedia"], ["2106.01147"], True,
           "Articles are split into sections, embedded once, and the reader conditions on the top eight.",
           "We built 12,400 questions whose answers need facts from one or two encyclopedia articles.",
           ["Section-level retrieval raised exact match from 38.4 to 46.9 on two-hop questions.",
            "Citing passages reduced unsupported answers by a third."]),
    _paper("2207.03361", "Graph Neural Forecasting of Passenger Demand at Intercity Stations",
           ["Chen Yutong", "Zhou Mingyu", "Samuel Okoro"], 2022,
           "IEEE Transactions on Intelligent Transportation Systems", "transportation",
           "Ticket demand at one station depends on its neighbours along the line. We model stations as "
           "nodes of a graph and forecast daily origin–destination demand two weeks ahead.",
           ["demand forecasting", "graph neural networks", "railway stations"], ["2203.08815"], False,
           "A spatio-temporal graph network with holiday embeddings predicts origin-destination flows.",
           "Two years of anonymised ticket sales for 210 stations.",
           ["Mean absolute percentage error was 8.7% at a 14-day horizon.",
            "Holiday embeddings alone removed 60% of the error around the Spring Festival."]),
    _paper("2209.12780", "Predicting Geyser Eruption Intervals from Seismic Tremor",
           ["Marcus Lindqvist", "Julia Hart", "Tane Walker"], 2022, "Geophysical Research Letters",
           "geoscience",
           "Geysers emit faint ground tremor as their conduits refill. Using a small seismometer array we "
           "predict the time to the next eruption of a cone geyser more accurately than duration-based "
           "rules.",
           ["geysers", "seismology", "hydrothermal systems", "forecasting"], [], True,
           "Spectral features of the tremor feed a gradient-boosted survival model.",
           "Six months of recordings covering 2,870 eruptions of one geyser.",
           ["Median absolute error of the predicted interval was 4.1 minutes.",
            "The classic rule based on the previous eruption's duration had an error of 6.8 minutes."]),
    _paper("2211.05590", "Tool-Augmented Language Models: A Survey of Interfaces",
           ["Tomás Ferreira", "Yuki Sato", "Grace Adeyemi"], 2022, "arXiv preprint", "machine learning",
           "We survey how language models are connected to calculators, search engines, code interpreters "
           "and web APIs. We classify interfaces by how tools are described, selected and invoked.",
           ["tool use", "language models", "survey", "APIs"], ["2204.11002"], True,
           "We reviewed 87 systems and coded each by description format, selection strategy and call syntax.",
           "The survey covers systems published between 2019 and 2022.",
           ["Only 14 of the 87 systems evaluated what happens when a tool's interface changes.",
            "Natural-language descriptions were the most common way of presenting tools."]),
    _paper("2301.00917", "Learning to Call APIs from Documentation Alone",
           ["Tomás Ferreira", "Hugo Lambert", "Amara Diallo"], 2023, "ICLR", "machine learning",
           "Can a model use an API it has never seen, given only its documentation? We fine-tune on "
           "synthetic documentation–call pairs and test on held-out real APIs.",
           ["tool use", "API calls", "zero-shot", "documentation"], ["2211.05590"], True,
           "Synthetic API documents are generated and paired with valid and invalid calls for training.",
           "The held-out test set has 1,250 calls to 164 real web APIs.",
           ["Call accuracy on unseen APIs rose from 52.3% to 71.8%.",
            "Most remaining errors were wrong optional parameters."]),
    _paper("2302.07741", "Crowding Forecasts for National Park Trailheads Using Mobile Signals",
           ["Aiyana Brooks", "Peter Vance", "Rosa Jimenez"], 2023, "Journal of Park and Recreation Management",
           "recreation",
           "Popular trailheads fill before sunrise on busy days. We forecast parking occupancy from "
           "aggregated mobile-device counts and weather, so that visitors can plan less crowded trips.",
           ["visitor use", "national parks", "forecasting", "mobility data"], ["2207.03361"], False,
           "Hourly device counts near trailheads are combined with forecasts in a gradient-boosted model.",
           "Data from 38 trailheads in five western national parks over two summers.",
           ["Occupancy at 9 a.m. was predicted within 7 percentage points on 85% of days.",
            "Weekend holidays were the hardest days to predict."]),
    _paper("2303.10028", "Benchmarking Agents on Multi-Step Tool Use",
           ["Lena Okafor", "Ravi Deshpande", "Tomás Ferreira"], 2023, "NeurIPS Datasets and Benchmarks",
           "machine learning",
           "We release a benchmark of tasks that need between one and twelve tool calls across simulated "
           "services. Success falls sharply with the number of required calls.",
           ["agents", "benchmark", "tool use", "multi-step"], ["2211.05590", "2301.00917"], True,
           "Tasks are written by annotators against deterministic simulated services and checked by replay.",
           "The benchmark has 412 tasks over 23 simulated services.",
           ["The best agent solved 61.2% of single-call tasks but only 17.5% of tasks needing eight or more.",
            "Wrong argument values caused more failures than choosing the wrong tool."]),
    _paper("2304.06612", "Downscaling Precipitation with Diffusion Models",
           ["Priya Raman", "Felix Gruber"], 2023, "Geophysical Research Letters", "climate science",
           "Coarse climate model output misses local rain extremes. A conditional diffusion model maps "
           "25-kilometre fields to 2-kilometre fields while keeping the statistics of heavy rain.",
           ["downscaling", "diffusion models", "precipitation", "climate"], ["2110.04420"], False,
           "A conditional diffusion model is trained on paired coarse and fine reanalysis fields.",
           "Ten years of hourly rain fields over the Yangtze River basin.",
           ["The 99th-percentile hourly rain rate was reproduced within 4%.",
            "A deterministic baseline underestimated it by 23%."]),
    _paper("2305.14472", "Time-Zone Errors in Scheduling Assistants: An Empirical Study",
           ["Hana Kobayashi", "Owen Fraser", "Tomás Ferreira"], 2023, "CHI", "human-computer interaction",
           "We audit how AI scheduling assistants handle meetings across time zones. Most errors come from "
           "daylight saving transitions and from assuming the user's own zone.",
           ["time zones", "scheduling", "assistants", "daylight saving time"], ["2211.05590"], True,
           "We issued 600 scripted scheduling requests and checked the resulting calendar entries.",
           "Requests involved 24 city pairs and dates on both sides of daylight saving changes.",
           ["19.3% of meetings proposed near a daylight saving change were off by one hour.",
            "Stating the time zone explicitly in the request halved the error rate."]),
    _paper("2306.02251", "Energy-Optimal Speed Profiles for 350 km/h Trains",
           ["Zhou Mingyu", "Elena Petrova"], 2023, "Transportation Research Part C", "transportation",
           "Running at top speed between stations wastes energy when the timetable has slack. We compute "
           "speed profiles that meet the timetable with minimal traction energy.",
           ["energy efficiency", "train control", "high-speed rail", "optimisation"], ["2203.08815"], True,
           "A dynamic program over speed and position finds coasting points under timetable constraints.",
           "Measured runs of 64 trains between Beijing South and Shanghai Hongqiao.",
           ["Optimal profiles used 11.6% less traction energy with no change in arrival times.",
            "Half of the saving came from coasting before the Nanjing South stop."]),
    _paper("2307.09931", "Glacier Retreat Mapping from Decades of Satellite Imagery",
           ["Marcus Lindqvist", "Aurora Nilsen", "Jamie Reid"], 2023, "Remote Sensing of Environment",
           "geoscience",
           "We map glacier outlines automatically from forty years of satellite images and measure how fast "
           "mountain glaciers in western North America are shrinking.",
           ["glaciers", "remote sensing", "climate change", "segmentation"], [], False,
           "A segmentation network traces glacier outlines, corrected for snow cover and shadows.",
           "Landsat scenes from 1984 to 2023 covering 1,420 glaciers.",
           ["Total glacier area in the study region fell by 38% between 1984 and 2023.",
            "Small glaciers under 1 square kilometre lost area twice as fast as large ones."]),
    _paper("2308.04127", "Self-Verification Reduces Hallucinated Tool Arguments",
           ["Tomás Ferreira", "Lena Okafor", "Sun Hao"], 2023, "EMNLP", "machine learning",
           "Agents often invent argument values such as IDs or dates. Asking the model to check each "
           "argument against earlier observations before calling a tool removes many of these errors.",
           ["tool use", "hallucination", "verification", "agents"], ["2301.00917", "2303.10028"], True,
           "Before each call the agent lists the source of every argument and revises unsupported ones.",
           "We test on the multi-step tool-use benchmark and a new set of 300 ID-heavy tasks.",
           ["Hallucinated arguments dropped from 14.2% to 5.9% of calls.",
            "Task success rose by 6.4 points at the cost of 22% more tokens."]),
    _paper("2309.11760", "Heat-Wave Early Warning with Subseasonal Ensembles",
           ["Priya Raman", "Nadia Haddad", "George Whitfield"], 2023, "Journal of Climate", "climate science",
           "Heat waves are predictable beyond ten days when soil moisture and ocean patterns are taken into "
           "account. We combine subseasonal ensembles with a learned correction to issue earlier warnings.",
           ["heat waves", "subseasonal forecasting", "early warning"], ["2110.04420", "2304.06612"], False,
           "Raw ensemble probabilities are corrected by a model that uses soil moisture anomalies.",
           "Reforecasts from 2000 to 2022 for 180 cities.",
           ["Useful warnings were issued a median of 12 days ahead, compared with 7 days before.",
            "False alarms fell by 18%."]),
    _paper("2310.05548", "Evaluating Long-Horizon Planning in Language Agents",
           ["Elif Aydin", "Lena Okafor", "Marco Bellini"], 2023, "arXiv preprint", "machine learning",
           "We study agents on tasks that need dozens of dependent steps. Plans that look correct at the "
           "start often break because early outputs are not carried forward correctly.",
           ["planning", "agents", "long-horizon", "evaluation"], ["2303.10028", "2211.05590"], True,
           "We instrument agents to record which earlier observation supplied each argument.",
           "Sixty travel-planning tasks each needing 15 to 40 tool calls.",
           ["Success fell from 48% on tasks of 15 steps to 9% on tasks of 40 steps.",
            "Forty-one percent of failures began with a value copied wrongly from an earlier result."]),
    _paper("2311.08804", "Air Quality Index Forecasting for Megacities with Transformer Encoders",
           ["Jonas Weber", "Nadia Haddad", "Liu Fang"], 2023, "Atmospheric Environment", "climate science",
           "We forecast the daily air quality index of large cities three days ahead from pollutant and "
           "weather histories using a transformer encoder.",
           ["air quality", "forecasting", "transformers", "cities"], ["2106.01147", "2110.04420"], True,
           "A transformer encoder reads 14 days of pollutant, wind and humidity observations.",
           "Hourly measurements from 31 cities in China and India, 2015 to 2022.",
           ["The day-ahead category was predicted correctly 78.4% of the time.",
            "Accuracy dropped to 61% three days ahead."]),
    _paper("2312.01193", "Robust Transfer Planning in Multimodal Journey Search",
           ["Chen Yutong", "Beatriz Santos"], 2023, "Transportation Science", "transportation",
           "Journey planners usually pick the fastest connection even when the transfer is tight. We "
           "propose a search that trades a little travel time for connections that survive typical delays.",
           ["journey planning", "transfers", "robustness", "public transport"],
           ["2203.08815", "2207.03361"], False,
           "Each connection is scored by its probability of being made under empirical delay distributions.",
           "Timetables and delay records for rail and metro in the Yangtze River Delta.",
           ["Robust plans were 6 minutes slower on average but missed connections 72% less often.",
            "A 20-minute minimum transfer time captured most of the benefit at rail hubs."]),
    _paper("2401.04417", "Schema Drift in Tool APIs and Its Effect on Agents",
           ["Lena Okafor", "Jakub Novak", "Tomás Ferreira"], 2024, "ICLR", "machine learning",
           "Tool APIs change: parameters are renamed, descriptions are rewritten and tools are split. We "
           "apply controlled changes to tool schemas and measure how often agents that succeeded before "
           "start failing.",
           ["schema drift", "tool use", "robustness", "agents"],
           ["2301.00917", "2303.10028", "2308.04127"], True,
           "Eleven kinds of schema change are applied one at a time to tools used in successful runs.",
           "We replay 900 previously solved tasks against changed tool schemas.",
           ["Renaming a required parameter broke 27% of previously solved tasks.",
            "Rewriting descriptions alone broke only 4%."]),
    _paper("2402.06630", "Wildlife Collision Hotspots along Park Roads",
           ["Aiyana Brooks", "Noah Whitehorse"], 2024, "Journal of Wildlife Management", "ecology",
           "Vehicle strikes kill many large animals on park roads. We locate collision hotspots from ranger "
           "reports and test whether lower speed limits reduce them.",
           ["wildlife", "road ecology", "national parks", "speed limits"], ["2302.07741"], False,
           "Kernel density estimates of reported strikes are compared before and after speed changes.",
           "Ranger reports of 3,216 collisions in four national parks, 2008 to 2022.",
           ["Ten percent of road length accounted for 52% of collisions.",
            "Lowering limits to 35 mph on hotspot segments cut collisions there by 29%."]),
    _paper("2403.03019", "Effect-Based Evaluation of Agent Trajectories",
           ["Sofia Marchetti", "Elif Aydin", "Lena Okafor"], 2024, "NeurIPS", "machine learning",
           "Grading agents by their final answer is brittle when data changes. We instead check whether the "
           "trajectory produced required effects, such as a tool called with the right arguments, and show "
           "that this agrees better with human judgement.",
           ["evaluation", "agents", "trajectories", "scoring"], ["2303.10028", "2310.05548"], True,
           "Each task lists effect checkpoints with sets of interchangeable tools and argument predicates.",
           "We annotate 1,100 trajectories from nine agents on 240 tasks.",
           ["Effect-based scores agreed with human raters with a kappa of 0.74.",
            "Final-answer matching reached only 0.49."]),
    _paper("2404.10552", "Distilling Reference Trajectories into Task Specifications",
           ["Sofia Marchetti", "Kwame Asante"], 2024, "ACL", "machine learning",
           "Writing checkpoints by hand is slow. We let a model convert a recorded successful trajectory "
           "into a specification of required effects, then filter specifications that an empty or random "
           "agent would pass.",
           ["task generation", "specifications", "agents", "distillation"],
           ["2403.03019", "2303.10028"], False,
           "A distiller model proposes checkpoints; checks reject any the reference trace does not support.",
           "Trajectories recorded on 74 simulated servers.",
           ["Filtering removed 17% of distilled tasks as trivially passable.",
            "Human reviewers accepted 91% of the remaining specifications unchanged."]),
    _paper("2405.07781", "Typhoon Track Forecasting with Graph Transformers",
           ["Jonas Weber", "Priya Raman", "Lin Qiaoyu"], 2024, "Monthly Weather Review", "climate science",
           "We represent the atmosphere around a typhoon as a graph and predict its track five days ahead "
           "with a graph transformer trained on reanalysis data.",
           ["tropical cyclones", "typhoons", "track forecasting", "graph transformers"],
           ["2106.01147", "2309.11760"], True,
           "Nodes carry wind and pressure at several levels; attention runs over neighbouring nodes.",
           "Best-track records of 1,030 western Pacific typhoons from 1979 to 2022.",
           ["The 72-hour track error was 142 kilometres, against 168 kilometres for the operational model.",
            "Errors were largest for storms that recurved sharply northward."]),
    _paper("2406.02266", "Same-Name Tools: Server Attribution Errors in Agent Toolkits",
           ["Lena Okafor", "Arjun Mehta"], 2024, "EMNLP", "machine learning",
           "When two connected servers expose tools with the same name, agents often call the wrong one. We "
           "measure this attribution error and test naming and description fixes.",
           ["tool selection", "namespacing", "agents", "MCP"], ["2303.10028", "2401.04417"], True,
           "Tasks are paired with toolkits that contain a same-name tool from a second server.",
           "We build 320 tasks over 40 pairs of servers that share at least one tool name.",
           ["Agents called the wrong same-name tool in 23.5% of episodes.",
            "Prefixing tools with their server name cut the error to 8.1%."]),
    _paper("2407.11840", "Long-Context Retrieval for Agents with Thousands of Tools",
           ["Ravi Deshpande", "Daniel Mensah", "Yara Haddad"], 2024, "arXiv preprint", "machine learning",
           "Putting every tool description in the prompt stops working beyond a few hundred tools. We "
           "retrieve a small set of candidate tools for each step and compare embedding, lexical and hybrid "
           "retrievers.",
           ["tool retrieval", "agents", "embeddings", "BM25"],
           ["2204.11002", "2106.01147", "2303.10028"], True,
           "Tool and server descriptions are embedded; the agent sees the top ten per step.",
           "A pool of 4,300 tools from 520 servers with 700 tasks.",
           ["Hybrid retrieval found the needed tool in the top ten 89.6% of the time.",
            "BM25 alone reached 81.2% and embeddings alone 85.0%."]),
    _paper("2408.05115", "Volcanic Gas Emission Monitoring at Kilauea with Low-Cost Sensors",
           ["Marcus Lindqvist", "Keala Kahananui"], 2024, "Journal of Volcanology and Geothermal Research",
           "geoscience",
           "Sulphur dioxide from Kilauea affects air quality downwind. We deploy a network of inexpensive "
           "electrochemical sensors and calibrate them against reference stations.",
           ["volcanic gas", "sulphur dioxide", "sensors", "Kilauea"], ["2209.12780"], False,
           "Sensor drift is corrected daily using co-located reference instruments and temperature.",
           "Twenty-two sensors operated for 14 months around the summit and downwind communities.",
           ["Calibrated sensors matched reference instruments with a correlation of 0.93.",
            "Peak hourly concentrations downwind reached 1.8 parts per million during an eruption."]),
    _paper("2409.09902", "Dynamic Pricing and Seat Allocation in High-Speed Rail",
           ["Zhou Mingyu", "Chen Yutong", "Fatima Zahra"], 2024, "Transportation Research Part B",
           "transportation",
           "Fares on some high-speed lines now float within a band. We jointly set fares and allocate seats "
           "between short and long trips to raise revenue without leaving long-distance travellers behind.",
           ["pricing", "seat allocation", "high-speed rail", "revenue management"],
           ["2207.03361", "2306.02251"], True,
           "A stochastic program sets fare levels per train and day and reserves seats for long segments.",
           "Sales data for 96 trains on a 1,300-kilometre corridor over one year.",
           ["Revenue rose by 5.3% while the share of long-distance passengers denied a seat fell by 12%.",
            "Fares moved within plus or minus 10% of the base fare on most days."]),
    _paper("2410.03371", "Reliable Date Arithmetic for Language Models",
           ["Hana Kobayashi", "Tomás Ferreira", "Iris Moreau"], 2024, "TMLR", "machine learning",
           "Language models often miscount days between dates or forget leap years. We compare in-context "
           "reasoning with calling a date tool and find that tool calls are nearly error-free when the model "
           "passes the right arguments.",
           ["date arithmetic", "temporal reasoning", "tool use"], ["2305.14472", "2308.04127"], True,
           "Models answer date questions either directly or by calling a calendar tool.",
           "A set of 2,000 date questions including leap years, month ends and time zones.",
           ["Direct answers were correct 71.5% of the time, tool-assisted answers 97.2%.",
            "Most remaining tool errors came from passing dates in the wrong time zone."]),
    _paper("2411.07724", "Crater Lake Clarity Trends over Four Decades",
           ["Marcus Lindqvist", "Hannah Oduya"], 2024, "Limnology and Oceanography", "geoscience",
           "Crater Lake is famous for its clear water. We analyse forty years of Secchi disk readings and "
           "find clarity has been stable, with dips after warm, dry winters.",
           ["lakes", "water clarity", "Crater Lake", "climate"], ["2307.09931"], False,
           "Seasonal trend decomposition is applied to monthly Secchi disk depths.",
           "Secchi readings taken from 1983 to 2023 at a fixed station on the lake.",
           ["Mean summer Secchi depth was 30.2 metres with no significant long-term trend.",
            "Clarity fell by about 4 metres in summers after low-snow winters."]),
    _paper("2412.02218", "Minefield Checks: Safety Constraints for Agent Benchmarks",
           ["Sofia Marchetti", "Elif Aydin", "Bram de Vries"], 2024, "arXiv preprint", "machine learning",
           "Benchmarks reward agents for doing the right thing but rarely penalise harmful side effects. We "
           "add minefields, effects that fail a task outright, such as deleting a file the user did not "
           "mention.",
           ["safety", "evaluation", "agents", "side effects"], ["2403.03019", "2310.05548"], True,
           "Each task lists forbidden effects; any matching successful call fails the episode.",
           "We add minefields to 180 tasks on servers that expose destructive tools.",
           ["Seven of twelve agents triggered at least one minefield in more than 5% of episodes.",
            "Destructive tools named similarly to read-only ones caused most violations."]),
    _paper("2501.06650", "Attention Sinks and Position Bias in Long-Context Transformers",
           ["Daniel Mensah", "Zara Hussain"], 2025, "ICLR", "machine learning",
           "Long-context models put much of their attention on the first few tokens. We show this sink "
           "explains part of the tendency to ignore information in the middle of long prompts.",
           ["attention", "long context", "position bias", "transformers"],
           ["2106.01147", "2407.11840"], False,
           "We measure attention mass per position and test a learned sink token.",
           "Synthetic retrieval prompts from 4,000 to 64,000 tokens.",
           ["The first four tokens received 38% of attention mass on average in late layers.",
            "A dedicated sink token improved mid-prompt retrieval accuracy by 9.1 points."]),
    _paper("2502.03384", "Monsoon Onset Prediction from Ocean Heat Content",
           ["Priya Raman", "Nadia Haddad", "Arun Pillai"], 2025, "Journal of Climate", "climate science",
           "The date the summer monsoon reaches southern India varies by weeks between years. We predict it "
           "from upper-ocean heat content in the Arabian Sea two months ahead.",
           ["monsoon", "onset", "ocean heat content", "seasonal forecasting"],
           ["2309.11760", "2405.07781"], True,
           "A regularised regression uses heat-content anomalies averaged over April.",
           "Onset dates and ocean reanalysis from 1980 to 2024.",
           ["Predicted onset dates had a mean absolute error of 4.3 days.",
            "Climatology alone gave an error of 7.1 days."]),
    _paper("2503.08812", "Interline Itineraries: Optimal Transfers at Hub Stations",
           ["Chen Yutong", "Zhou Mingyu", "Laura Becker"], 2025, "Transportation Research Part C",
           "transportation",
           "When no direct train has seats, travellers can combine two trains with a change at a hub. We "
           "search for such interline itineraries and rank them by total time and transfer risk.",
           ["transfers", "journey planning", "high-speed rail", "hub stations"],
           ["2312.01193", "2203.08815", "2409.09902"], True,
           "A two-leg search joins trains at shared hub cities with minimum and maximum transfer windows.",
           "A national timetable of 9,800 trains and seat availability snapshots.",
           ["Interline itineraries offered a seat on 64% of sold-out direct journeys.",
            "The best itinerary was on average 38 minutes slower than the direct train."]),
    _paper("2504.01176", "Server Evolution and Agent Robustness on MCP",
           ["Lena Okafor", "Sofia Marchetti", "Jakub Novak"], 2025, "arXiv preprint", "machine learning",
           "MCP servers change between releases. We mutate real servers step by step and track whether "
           "agents that solved tasks on the first version still solve them on later ones.",
           ["MCP", "server evolution", "robustness", "agents"],
           ["2401.04417", "2406.02266", "2403.03019", "2404.10552"], True,
           "Servers are evolved over five rounds of interface and description changes with validation.",
           "Fifty servers, each with early, middle and late versions, and 600 tasks.",
           ["Mean task success fell from 58% on the original servers to 41% after five rounds.",
            "Parameter changes hurt more than description changes."]),
    _paper("2505.09923", "A Stargazing Conditions Index from Cloud and Light Pollution Maps",
           ["Aiyana Brooks", "Ravi Kapoor"], 2025, "Publications of the Astronomical Society of the Pacific",
           "astronomy",
           "We combine cloud forecasts, moon phase and artificial sky brightness into a single nightly index "
           "of stargazing quality for parks and dark-sky places.",
           ["stargazing", "light pollution", "dark skies", "national parks"],
           ["2302.07741", "2304.06612"], False,
           "Index weights were fitted to ratings from amateur astronomers.",
           "Observer logs from 46 dark-sky sites over three years.",
           ["The index ranked nights in the same order as observers 82% of the time.",
            "Moon phase mattered more than cloud forecasts on clear-season nights."]),
]

MIRROR_ONLY: list[dict[str, Any]] = [
    {"id": "2506.00412", "title": "Tool Descriptions as an Attack Surface in Agent Ecosystems",
     "authors": ["Noor Aziz", "Lena Okafor"], "year": 2025, "venue": "arXiv preprint", "citation_count": 12,
     "keywords": ["security", "tool descriptions"], "pdf_url": "https://mirror.example.org/pdf/2506.00412.pdf",
     "mirrored_on": "2025-07-02"},
    {"id": "2506.07718", "title": "Pass^k: Measuring the Consistency of Language Agents",
     "authors": ["Elif Aydin", "Marco Bellini"], "year": 2025, "venue": "arXiv preprint", "citation_count": 19,
     "keywords": ["evaluation", "consistency"], "pdf_url": "https://mirror.example.org/pdf/2506.07718.pdf",
     "mirrored_on": "2025-07-15"},
    {"id": "2507.01934", "title": "Rail Timetable Question Answering with Language Agents",
     "authors": ["Chen Yutong", "Wang Lei"], "year": 2025, "venue": "arXiv preprint", "citation_count": 4,
     "keywords": ["high-speed rail", "agents"], "pdf_url": "https://mirror.example.org/pdf/2507.01934.pdf",
     "mirrored_on": "2025-08-03"},
    {"id": "2507.05560", "title": "Synthetic Weather Worlds for Agent Evaluation",
     "authors": ["Priya Raman", "Sofia Marchetti"], "year": 2025, "venue": "arXiv preprint",
     "citation_count": 7, "keywords": ["weather", "simulation"],
     "pdf_url": "https://mirror.example.org/pdf/2507.05560.pdf", "mirrored_on": "2025-08-20"},
]


# --------------------------------------------------------------------------- main


def _dump(name: str, obj: Any) -> int:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n"
    (HERE / name).write_text(text, encoding="utf-8")
    return len(text.encode())


def main() -> None:
    rail = build_rail()
    parks = build_parks()
    maps = build_maps(rail, parks)
    weather = build_weather(parks)
    worldclock = build_worldclock()
    encyclopedia = build_encyclopedia()
    papers, mirror = build_papers()
    total = 0
    for name, obj in (
        ("rail.json", rail),
        ("parks.json", parks),
        ("maps.json", maps),
        ("weather.json", weather),
        ("worldclock.json", worldclock),
        ("encyclopedia.json", encyclopedia),
        ("papers.json", papers),
        ("papers_mirror.json", mirror),
    ):
        size = _dump(name, obj)
        total += size
        print(f"{name:22s} {size:8d} bytes")
    print(
        f"{'total':22s} {total:8d} bytes; {len(rail['trains'])} trains, {len(maps['places'])} places, "
        f"{len(encyclopedia['articles'])} articles, {len(papers['papers'])} papers"
    )


if __name__ == "__main__":
    main()
